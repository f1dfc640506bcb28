package main

import acctadmin "github.com/acctadmin/acctadmin-go"

// version is what acctadmin --version says and its User-Agent carries: the
// SDK's Version, which is the release's (every module is released at one
// version), so that go install ...@v0.4.0 says 0.4.0 with no flags. A
// release build may set it, as goreleaser does, with
// -ldflags "-X main.version=0.4.0".
var version = acctadmin.Version
