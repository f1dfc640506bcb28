#!/usr/bin/env python3
"""Runs the provider's own example clients, unmodified, against the fake.

Every example of the JavaScript client (with fetch and with axios) and of
the Python client is run once against a fresh demo account of the
standalone fake (-seed -check-answers), configured through the examples'
.env file as their README says; then the end-to-end EIN checkout of the
JavaScript (fetch) and Python clients. The fake's request log gives the
answer each route got. It prints, per client, the routes it called and
how many answered 2xx, every route that never did, the checkout's steps
and exit status, and how many answers broke the fake's OpenAPI document.

Usage (from the repository's root):

    python3 cmd/acctadmin-fake/provider_clients.py EXAMPLES_DIR

EXAMPLES_DIR is a checkout of corptools-api/CorpTools-API-Examples with
`npm ci` run in its javascript/ folder. The JavaScript examples need Node
18 or later; the Python ones need requests, PyJWT and python-dotenv
(Debian: python3-requests python3-jwt python3-dotenv), in the Python
that PYTHON names (default: python3 on PATH). The script needs
only Python's standard library and Go, which builds the fake. It listens
on 127.0.0.1 only and stops the fake by its pid. It exits 1 when a client
leaves a route without a 2xx answer, a checkout does not end well, or an
answer breaks the document.
"""
import collections
import datetime
import json
import os
import subprocess
import sys
import tempfile
import urllib.request
import uuid

ACCESS_KEY, SECRET_KEY = "ak-examples", "sk-examples-0123456789"
DEMO_NS = uuid.uuid5(uuid.NAMESPACE_URL, "https://github.com/acctadmin/acctadmin-go/acctadmintest/demo")
JURISDICTION_NS = uuid.uuid5(uuid.NAMESPACE_URL, "https://github.com/acctadmin/acctadmin-go/acctadmintest/jurisdictions")
CALLBACK_URL = "http://127.0.0.1:9/hook"
CLIENTS = {
    # name: (folder, command for one example file, runs the checkout)
    "javascript-fetch": ("javascript", lambda f: ["node", f], True),
    "javascript-axios": ("javascript", lambda f: ["node", f, "axios"], False),
    "python": ("python", lambda f: [os.environ.get("PYTHON", "python3"), f, "standalone"], True),
}
CHECKOUT = "examples/end-to-end/ein_tax_id_checkout"


def demo(kind, n):
    """The id of the n-th demo record of a kind, as acctadmintest.DemoID."""
    return str(uuid.uuid5(DEMO_NS, f"{kind}/{n}"))


class Fake:
    def __init__(self, binary):
        self.proc = subprocess.Popen(
            [binary, "-addr", "127.0.0.1:0", "-access-key", ACCESS_KEY, "-secret-key", SECRET_KEY,
             "-seed", "-check-answers"],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.base = None
        for line in self.proc.stdout:
            if line.startswith("ACCTADMIN_BASE_URL="):
                self.base = line.strip().split("=", 1)[1]
            if line.startswith("ACCTADMIN_SECRET_KEY="):
                break
        if self.base is None:
            self.stop()
            sys.exit("the fake did not print its address")

    def control(self, method, path, body=None):
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.base + "/_fake/" + path, data=data, method=method)
        with urllib.request.urlopen(req, timeout=30) as r:
            return json.loads(r.read())

    def stop(self):
        """Stops the fake by its pid and returns what it printed since."""
        self.proc.terminate()
        rest = self.proc.stdout.read()
        self.proc.wait(timeout=30)
        return rest


def configure(fake, examples):
    """Resets the demo account and writes the examples' .env for it."""
    fake.control("POST", "reset?demo=true")
    callback = fake.control("POST", "callbacks", {"url": CALLBACK_URL})
    token = fake.control("GET", "auth/reset-token")["token"]
    today = datetime.date.today()
    env = {
        "ACCESS_KEY": ACCESS_KEY, "SECRET_KEY": SECRET_KEY, "API_URL": fake.base,
        "AGENCY_RESOURCE_ID": demo("resource", 1), "CALLBACK_ID": callback["id"], "CALLBACK_URL": CALLBACK_URL,
        "COMPANY_ID": demo("company", 1), "COMPANY_NAME": "Acme Widgets LLC", "DOCUMENT_ID": demo("document", 1),
        "EMAIL": "demo@example-agent.com", "PASSWORD": "demo-password",
        "FILING_PRODUCT_ID": demo("catalog-product", 1), "FILING_METHOD_ID": demo("catalog-method", 1),
        "JURISDICTION": "UT", "JURISDICTIONS": "Utah,Idaho", "JURISDICTION_ID": str(uuid.uuid5(JURISDICTION_NS, "Utah")),
        "PAGE_NUMBER": "0", "PAYMENT_METHOD_ID": demo("payment-method", 1), "ORDER_ITEM_ID": demo("order-item", 1),
        "RESET_PASSWORD_TOKEN": token, "SERVICE_ID": demo("service", 1), "SHOPPING_CART_ITEM_ID": demo("cart-item", 1),
        "STATUS": "unread", "WEBSITE_URL": "www.example-agent.com", "WEBSITE_ID": demo("website", 1),
        "ENTITY_TYPE": "LLC", "START_DATE": today.isoformat(),
        "END_DATE": today.replace(year=today.year + 1).isoformat(), "INVOICE_ID": demo("invoice", 4),
    }
    with open(os.path.join(examples, ".env"), "w") as f:
        for k, v in env.items():
            f.write(f"{k}='{v}'\n")
    fake.control("DELETE", "requests")


def run(cmd, cwd):
    p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout + p.stderr


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    examples = os.path.abspath(sys.argv[1])
    repo = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
    tmp = tempfile.mkdtemp()
    binary = os.path.join(tmp, "acctadmin-fake")
    subprocess.run(["go", "build", "-o", binary, "./cmd/acctadmin-fake"], cwd=repo, check=True)
    fake = Fake(binary)
    failed = False
    try:
        for name, (folder, cmd, checkout) in CLIENTS.items():
            ok, bad = collections.Counter(), collections.defaultdict(list)
            cwd = os.path.join(examples, folder)
            ext = ".js" if folder == "javascript" else ".py"
            for fn in sorted(os.listdir(os.path.join(cwd, "examples"))):
                if not fn.endswith(ext):
                    continue
                configure(fake, examples)
                run(cmd("examples/" + fn), cwd)
                for r in fake.control("GET", "requests"):
                    route = r["method"] + " " + r["route"]
                    if 200 <= r["status"] < 300:
                        ok[route] += 1
                    else:
                        bad[route].append(f'{fn}: {r["status"]}')
            never = {k: v for k, v in bad.items() if k not in ok}
            called = len(set(ok) | set(bad))
            print(f"{name}: {len(ok)} of the {called} routes it calls answered 2xx")
            for route, why in sorted(never.items()):
                print(f"  never 2xx: {route} ({'; '.join(why[:3])})")
            failed = failed or bool(never) or called == 0
            if checkout:
                configure(fake, examples)
                rc, out = run(cmd(CHECKOUT + ext)[:2], cwd)
                steps = fake.control("GET", "requests")
                last = steps[-1] if steps else None
                good = rc == 0 and last is not None and 200 <= last["status"] < 300 and \
                    last["route"] == "/order-items/requiring-attention" and last["method"] == "POST"
                print(f"  checkout: exit {rc}, {len(steps)} requests, the last "
                      f"{last['method'] + ' ' + last['route'] + ' ' + str(last['status']) if last else 'none'}"
                      f"{'' if good else ': did not end well'}")
                if not good:
                    print("  " + out[-1500:].replace("\n", "\n  "))
                failed = failed or not good
    finally:
        rest = fake.stop()
    broken = rest.count("contract:")
    print(f"answers that broke the OpenAPI document: {broken}")
    sys.exit(1 if failed or broken else 0)


if __name__ == "__main__":
    main()
