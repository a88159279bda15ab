"""Credentials by provider and by shape, refused from every source; references
and placeholders pass. Tokens are assembled at run time from a prefix and a
random-looking body, so no literal secret sits in the repository."""

from __future__ import annotations

import pytest

from substrate.safety import RULES

BODY = "q7Xk2Lm9Pz4Rt8Vb3Nw6Yc1Hd5Jf0Gs"  # 32 mixed characters
HEX = "9f3b2c7d1e8a4f6b0c5d2e9a7b3c1d8e"  # 32 hex digits


def token(prefix: str, n: int, alphabet: str = BODY) -> str:
    return prefix + (alphabet * 8)[:n]


PROVIDERS = {
    "AWS access key id (AKIA)": token("AKIA", 16, "Q7XK2LM9PZ4RT8VB"),
    "AWS access key id (ASIA)": token("ASIA", 16, "Q7XK2LM9PZ4RT8VB"),
    "AWS access key id (AROA)": token("AROA", 16, "Q7XK2LM9PZ4RT8VB"),
    "GitHub token": token("ghp_", 36),
    "GitHub fine-grained token": token("github_pat_", 40),
    "GitLab token": token("glpat-", 20),
    "Slack token": token("xoxb-1234567890-", 24),
    "Slack webhook": "https://hooks.slack.com/services/T0000/B0000/" + BODY[:24],
    "Stripe key": token("sk_live_", 24),
    "OpenAI key": token("sk-proj-", 20) + "T3BlbkFJ" + BODY[:20],
    "Anthropic key": token("sk-ant-api03-", 40),
    "npm token": token("npm_", 36),
    "PyPI token": token("pypi-AgE", 60),
    "SendGrid key": "SG." + BODY[:22] + "." + BODY[:32],
    "Telegram bot token": "123456789:AA" + token("", 33),
    "Discord token": "M" + BODY[:25] + "." + BODY[:6] + "." + BODY[:27],
    "Mailchimp key": HEX + "-us12",
    "Square token": token("sq0atp-", 22),
    "Azure connection string": "DefaultEndpointsProtocol=https;AccountName=x;AccountKey="
    + BODY
    + "==",
    "Google API key": token("AIza", 35),
    "JWT with signature": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0." + BODY,
    "JWT without signature": "eyJhbGciOiJub25lIn0.eyJzdWIiOiIxMjM0NTY3ODkwIn0.",
    "PEM private key": "-----BEGIN RSA PRIVATE KEY-----\nMIIEow" + BODY + "\n-----END RSA",
    "OpenSSH private key": "-----BEGIN OPENSSH PRIVATE KEY-----\nb3Blbn" + BODY,
    "URL password": "postgres://admin:" + BODY[:12] + "@db.example.com:5432/app",
    "Authorization header": "Authorization: Bearer " + BODY,
}


@pytest.mark.parametrize("name", sorted(PROVIDERS))
def test_each_provider_format_is_refused_from_every_source(name: str) -> None:
    text = f"note: {PROVIDERS[name]}"
    for source in ("user", "import", "llm", "tool"):
        verdict = RULES.check(text, source)
        assert (verdict.ok, verdict.rule) == (False, "credential"), (name, source, verdict)


@pytest.mark.parametrize(
    "assignment",
    [
        "aws_secret_access_key = " + BODY[:28] + "/Ab+",
        "AWS_SECRET_ACCESS_KEY=" + BODY[:28] + "/Ab+",
        "password: Tr0ub4dor&3x",
        "db.password = 'Kq8#mZ2pLw'",
        "clientSecret: " + BODY[:24],
        "my api key is " + BODY[:26],
    ],
)
def test_an_assignment_in_any_case_is_judged_by_its_value(assignment: str) -> None:
    verdict = RULES.check(assignment)
    assert (verdict.ok, verdict.rule) == (False, "credential"), verdict


@pytest.mark.parametrize(
    "reference",
    [
        "password = <your password>",
        "NPM_TOKEN=${NPM_TOKEN}",
        "api_key: {{ secrets.API_KEY }}",
        "password: changeme",
        "token = os.environ['GITHUB_TOKEN']",
        "secret: xxxxxxxx",
        "password = $DB_PASSWORD",
        "The wifi password is on the fridge.",
        "key: value",
    ],
)
def test_references_and_placeholders_pass(reference: str) -> None:
    assert RULES.check(reference).ok, RULES.check(reference)
