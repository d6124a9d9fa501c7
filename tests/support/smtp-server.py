# A real SMTP server for the tests (Debian's python3-aiosmtpd): STARTTLS with the given certificate
# (or TLS from the first byte with --implicit), AUTH PLAIN/LOGIN of one user required before MAIL;
# every mail kept as one JSON line on stdout. Stops when its stdin closes.
import argparse, json, ssl, sys
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword

p = argparse.ArgumentParser()
p.add_argument("--port", type=int, required=True)
p.add_argument("--cert", required=True)
p.add_argument("--key", required=True)
p.add_argument("--user", required=True)
p.add_argument("--password", required=True)
p.add_argument("--implicit", action="store_true")
a = p.parse_args()


class Keep:
    async def handle_DATA(self, server, session, envelope):
        mail = {
            "from": envelope.mail_from,
            "to": envelope.rcpt_tos,
            # Implicit TLS wraps the socket before the session starts: aiosmtpd's session sees no STARTTLS.
            "tls": a.implicit or session.ssl is not None,
            "authenticated": bool(session.authenticated),
            "data": envelope.content.decode("utf8", "replace"),
        }
        print(json.dumps(mail), flush=True)
        return "250 OK"


def authenticate(server, session, envelope, mechanism, data):
    ok = isinstance(data, LoginPassword) and data.login.decode() == a.user and data.password.decode() == a.password
    return AuthResult(success=ok, handled=False)


tls = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
tls.load_cert_chain(a.cert, a.key)
# AUTH is required before MAIL; over STARTTLS it is offered only once TLS is on.
options = dict(hostname="127.0.0.1", port=a.port, authenticator=authenticate, auth_required=True)
if a.implicit:
    c = Controller(Keep(), ssl_context=tls, auth_require_tls=False, **options)
else:
    c = Controller(Keep(), tls_context=tls, require_starttls=True, auth_require_tls=True, **options)
c.start()
print(json.dumps({"ready": True}), flush=True)
sys.stdin.read()
c.stop()
