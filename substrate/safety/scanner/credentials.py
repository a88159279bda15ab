"""Secrets: refused from every source, by provider format and by shape.

Provider formats are the prefixes and lengths their issuers document (AWS key
ids, GitHub, GitLab, Slack, Stripe, OpenAI and Anthropic keys, npm, PyPI,
SendGrid, Telegram and Discord bot tokens, Mailchimp, Square, Azure
connection strings and client secrets, and the rest below), JWTs with or
without a signature, PEM and SSH private keys, URLs and connection strings
with a password, `curl --user` and `Authorization:` headers.

Assignments (`aws_secret_access_key = …`, `password: …`, in any case) are
judged by their value: a reference (`${NPM_TOKEN}`, `{{ pwd }}`, `$password`),
a placeholder (`<your password>`, `changeme`, `xxxx`) or an ordinary word
passes; a value of eight or more characters that mixes letters with digits
or symbols, or is long and random-looking (entropy), does not.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from substrate.safety.patterns import Linear, any_of
from substrate.safety.scanner.findings import Finding, rx

Pattern = Linear


def _c(pattern: str) -> Pattern:
    return rx(pattern)


PROVIDERS: tuple[tuple[str, Pattern], ...] = (
    ("private key block", _c(r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----")),
    ("PuTTY private key", _c(r"PuTTY-User-Key-File-\d: ")),
    (
        "AWS access key id",
        _c(
            r"\b(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AIPA|ANPA|ANVA|AROA|APKA)[A-Z0-9]{16}\b"
        ),
    ),
    ("Amazon Bedrock API key", _c(r"\bABSK[A-Za-z0-9+/]{40,}={0,2}")),
    ("GitHub token", _c(r"\b(?:gh[pousr]_[A-Za-z0-9_]{30,}|github_pat_[A-Za-z0-9_]{22,})")),
    (
        "GitLab token",
        _c(r"\b(?:glpat|gldt|glrt|glsoat|glcbt|glptt|glft|glimt|glagent|gloas)-[A-Za-z0-9_-]{20,}"),
    ),
    (
        "Slack token",
        _c(r"\bxox[abposre]\.?(?:xox[abposr]-)?-?[A-Za-z0-9-]{10,}|\bxapp-\d-[A-Za-z0-9-]{10,}"),
    ),
    ("Slack webhook", _c(r"hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9_/]{16,}")),
    ("Stripe key", _c(r"\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}|\bwhsec_[A-Za-z0-9]{24,}")),
    (
        "OpenAI key",
        _c(r"\bsk-(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_-]{20,}T3BlbkFJ[A-Za-z0-9_-]{20,}"),
    ),
    ("Anthropic key", _c(r"\bsk-ant-(?:api\d+|admin\d+|oat\d+|sid\d+)-[A-Za-z0-9_-]{30,}")),
    ("API key (sk-…)", _c(r"\bsk-(?:proj-|svcacct-|admin-|live-|or-v1-|ant-)?[A-Za-z0-9_-]{24,}")),
    ("Google API key", _c(r"\bAIza[0-9A-Za-z_-]{35}\b")),
    ("Google OAuth secret", _c(r"\bGOCSPX-[A-Za-z0-9_-]{28}\b")),
    ("Google service account", _c(r"\"type\"\s*:\s*\"service_account\"")),
    ("Hugging Face token", _c(r"\b(?:hf_|api_org_)[A-Za-z0-9]{30,}")),
    ("npm token", _c(r"\bnpm_[A-Za-z0-9]{36}\b|_authToken\s*=\s*[A-Za-z0-9._+/=-]{16,}")),
    ("PyPI token", _c(r"\bpypi-AgE[A-Za-z0-9_-]{50,}")),
    ("SendGrid key", _c(r"SG\.[A-Za-z0-9_-]{16,32}\.[A-Za-z0-9_-]{16,64}")),
    ("Telegram bot token", _c(r"\b\d{8,10}:AA[A-Za-z0-9_-]{32,35}\b")),
    ("Discord token", _c(r"\b[MNO][A-Za-z0-9_-]{23,27}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,40}\b")),
    ("Discord webhook", _c(r"discord(?:app)?\.com/api/webhooks/\d+/[A-Za-z0-9_-]{30,}")),
    ("Mailchimp key", _c(r"\b[0-9a-f]{32}-us\d{1,2}\b")),
    ("Square token", _c(r"\bsq0(?:atp|csp)-[0-9A-Za-z_-]{22,43}\b|\bEAAA[A-Za-z0-9_-]{60}\b")),
    (
        "Azure connection string",
        _c(r"(?i)(?:AccountKey|SharedAccessKey|SharedAccessSignature|sig)=[A-Za-z0-9%+/=]{20,}"),
    ),
    (
        "Azure client secret",
        _c(r"(?:^|[^A-Za-z0-9_~.-])[A-Za-z0-9_~.-]{3}\dQ~[A-Za-z0-9_~.-]{31,34}"),
    ),
    ("Twilio key", _c(r"\bSK[0-9a-fA-F]{32}\b")),
    ("Shopify token", _c(r"\bshp(?:at|ca|pa|ss)_[A-Za-z0-9]{32,}")),
    ("Databricks token", _c(r"\bdapi[A-Fa-f0-9]{32}(?:-\d)?\b")),
    ("Doppler token", _c(r"\bdp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9]{40,}")),
    ("Vercel token", _c(r"\bvc[pikar]_[A-Za-z0-9]{24,}")),
    (
        "Cloudflare token",
        _c(r"\bcf(?:at|ut|k)_[A-Za-z0-9]{40,}|\bv1\.0-[a-f0-9]{24}-[a-f0-9]{64,}"),
    ),
    ("Grafana token", _c(r"\bglc_[A-Za-z0-9+/]{32,}={0,2}|\bglsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}")),
    ("Groq key", _c(r"\bgsk_[A-Za-z0-9]{48,}")),
    ("Perplexity key", _c(r"\bpplx-[A-Za-z0-9]{40,}")),
    ("Linear key", _c(r"\blin_(?:api|oauth)_[A-Za-z0-9]{40}")),
    ("Notion token", _c(r"\bntn_[0-9]{11}[A-Za-z0-9]{32,}|\bsecret_[A-Za-z0-9]{43}\b")),
    ("Figma token", _c(r"\bfigd_[A-Za-z0-9_-]{40,}")),
    ("Atlassian token", _c(r"\bATATT3[A-Za-z0-9_=-]{100,}|\bATCTT3[A-Za-z0-9_=-]{100,}")),
    (
        "HashiCorp Vault token",
        _c(
            r"\bhv[sbr]\.[A-Za-z0-9_-]{24,}|(?i:vault\w*)\W{1,6}s\.[A-Za-z0-9]{24}\b|\btoken: s\.[A-Za-z0-9]{24}\b"
        ),
    ),
    (
        "Sourcegraph token",
        _c(
            r"\bsgp_(?:local_)?[A-Fa-f0-9]{16,40}(?:_[A-Fa-f0-9]{40})?|(?i:sourcegraph)\W{1,4}[A-Fa-f0-9]{40}\b"
        ),
    ),
    ("SonarQube token", _c(r"\bsq[pua]_[A-Fa-f0-9]{40}\b|(?i:sonar)\w*\W{1,10}[A-Za-z0-9]{40}\b")),
    ("Tailscale key", _c(r"tskey-[a-z]+-[A-Za-z0-9]{8,}-[A-Za-z0-9]{8,}")),
    ("Octopus Deploy key", _c(r"\bAPI-[A-Z0-9]{26}\b")),
    (
        "1Password token",
        _c(
            r"\bops_eyJ[A-Za-z0-9+/=_-]{40,}|\bA3-[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}"
        ),
    ),
    (
        "Docker token",
        _c(r"\bdckr_pat_[A-Za-z0-9_-]{20,}|\"auth\"\s*:\s*\"[A-Za-z0-9+/]{12,}={0,2}\""),
    ),
    (
        "Facebook token",
        _c(r"\bEAA[A-Za-z0-9]{30,}|(?i:facebook)\W{1,20}\d{15,16}\|[A-Za-z0-9_-]{20,}"),
    ),
    ("ClickHouse key", _c(r"\b4b1d[A-Za-z0-9]{38}\b")),
    ("42 Intra secret", _c(r"\bs-s4t2(?:ud|af)-[a-f0-9]{64}\b")),
    (
        "UUID key of a named service",
        _c(
            r"(?i:snyk|messagebird|heroku|pagerduty)\w*\W{1,12}[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}\b"
        ),
    ),
    ("JSON web token", _c(r"\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}(?:\.[A-Za-z0-9_-]*)?")),
    (
        "crypto private key",
        _c(r"(?i:private|secret|wallet|priv)\w*\W{1,30}(?:0x)?[0-9a-fA-F]{64}\b"),
    ),
    (
        "Kubernetes secret",
        _c(r"(?s)kind:\s*Secret\b.*\bdata:\s*\n\s+\w+:\s*[A-Za-z0-9+/]{8,}={0,2}"),
    ),
    (
        "Sidekiq credentials",
        _c(r"(?i)https?://[a-z0-9]+:[a-z0-9]+@(?:gems|enterprise)\.contribsys\.com"),
    ),
    (
        "webhook URL",
        _c(
            r"(?i)api\.hubapi\.com/webhooks/v\d+/\w+/\w{12,}|chat\.twilio\.com/v\d/Services/IS\w{20,}/\w{12,}"
        ),
    ),
)
_URL_PASSWORD = rx(r"(?i)\b[a-z][a-z0-9+.-]*://([^/\s:@\"']+):([^\s@\"'/]+)@[^\s/\"']+")
_URL_QUERY_PASSWORD = rx(r"(?i)[?&;](?:amp;)?(?:user)?(?:pass|password|pwd|userpass)=([^&\s\"';]+)")
_CURL_USER = rx(r"(?i)(?:--user|-u)\s+[\"']?[^\s:\"']+[\"']?:[\"']?([^\s\"']+)")
# "my snyk key is 1234…": a secret stated in words.
_STATED = rx(
    r"(?i)\b(key|token|password|passcode|passphrase|secret|api key|access code)\s+(?:is|was|=)\s+[\"']?([^\s\"',;]+)"
)
# "my password is hunter2", "the PIN is 4821", "كلمة المرور هي …": a value the
# person names as a password or a PIN is one, whatever its shape (a short or
# plain-looking one too); only a placeholder or a reference is not.
_STATED_PASSWORD = rx(
    r"(?i)\b(password|passwd|passcode|passphrase|pin(?: code| number)?)(?:\s+(?:is|was)\s+|\s*:\s*)"
    r"[\"']?([^\s\"',;]+)"
)
# Arabic has no parser here: the name, up to four words that modify it ("الخاصة
# بحساب البنك"), then هي / هو or a colon and the value.
_STATED_PASSWORD_AR = rx(
    r"(كلمة\s+(?:المرور|السر)|الرقم\s+السري|رمز\s+(?:المرور|الدخول))"
    r"(?:\s+[^\s:]+){0,4}?(?:\s+(?:هي|هو)\s+|\s*:\s*)"
    r"[\"']?([^\s\"',;،]+)"
)
_STATED_PATTERNS = (_STATED_PASSWORD, _STATED_PASSWORD_AR)
_HINT = rx(r"(?i)\b(?:pass(?:wd|word|code|phrase)s?|pin)\b")
_AUTH_HEADER = rx(r"(?i)authorization\s*:\s*(?:basic|bearer|token)?\s*([A-Za-z0-9+/=._~-]{24,})")
_VALUE = r"[\"']?\s*(?::=|=>|[:=])\s*[\"']?([^\s\"',;]+)"
_ASSIGNMENT = rx(
    r"(?i)\b((?:[a-z0-9]+[_.-])*(?:password|passwd|pwd|pass|secret|token|api[_.-]?key|apikey|"
    r"access[_.-]?key|private[_.-]?key|client[_.-]?secret|credentials?|auth[_.-]?token|"
    r"authtoken|key|pat))(?:[_.-]\w+)?\b" + _VALUE
)
# camelCase names (`slackKey`, `resetUrlPassword`): the keyword's capital marks the word.
_CAMEL_ASSIGNMENT = rx(
    r"\b([a-z][a-zA-Z0-9]*(?:Password|Passwd|Pwd|Secret|Token|ApiKey|Key|Credentials?))\b" + _VALUE
)
# Values that name a secret rather than hold one: URLs, paths, templates.
_NOT_A_VALUE = rx(r"://|^[/~]|^\.\.?/|\$\{|\$\(|^\$\w|\{\{|\{\w*\}|^<[^>]*>$|^%\w+%$")
_REFERENCE = rx(
    r"^(?:\$\{?\{?[\w.]+\}?\}?|\$\$\{?\w+\}?|\{\{.*\}\}|\{\w+\}|%\w+%|<.*>|\$\(.*\)|"
    r"(?:os\.)?(?:getenv|environ)\b.*|process\.env\.\w+|env\.\w+|\w+\(.*)$"
)
_PLACEHOLDER = rx(
    r"(?i)^(?:x{3,}|\*{3,}|\.{3,}|#{3,}|-+|(?:your|my|the|some|an?)[-_][-\w]*|"
    r"(?:your|my|the|some)(?:password|passwd|pass|pwd|key|token|secret|api_?key|apikey|value)s?\d?|changeme|change_me|"
    r"example[-_\w]*|sample[-_\w]*|placeholder|redacted|dummy|fake|test|testing|none|null|nil|"
    r"true|false|secret|password|passwd|token|key|value|string|todo|tbd|required|optional|"
    r"\w*placeholder\w*|[-\w]+[-_]here|enter[-_\w]*|insert[-_\w]*|replace[-_\w]*)$"
)


# Words that name a secret in prose as often as in config: a value after them
# must look random, not merely mix a letter with a digit.
PROSE_WORDS = frozenset({"pass", "key", "token", "secret", "pat", "credential", "credentials"})
# Words and short numbers joined by dashes, dots or underscores, in one case.
_WORDISH = rx(
    r"^(?:[a-z]+|[A-Z]?[a-z]+|[A-Z]+|\d{1,4})(?:[-_.](?:[a-z]+|[A-Z]?[a-z]+|[A-Z]+|\d{1,4}))*$"
)

_ANY_SHAPE = any_of(
    [pattern for _, pattern in PROVIDERS]
    + [_URL_PASSWORD, _CURL_USER, _AUTH_HEADER, _URL_QUERY_PASSWORD]
    + [_ASSIGNMENT, _CAMEL_ASSIGNMENT, _STATED, _STATED_PASSWORD, _STATED_PASSWORD_AR]
)


@dataclass(frozen=True)
class StatedValue:
    """A value a text gives a secret's name, as a reading of its structure finds
    it (`meaning.secrets`). `ends`: nothing of the sentence follows it (a plain
    word the sentence goes on from is prose). `describing`: the parse reads it
    as a word that describes the secret ("is incorrect")."""

    name: str
    value: str
    ends: bool
    describing: bool


# Reads where a text states a value for a password, a PIN, a passcode or a
# passphrase (English, by the parse); the composition root passes one.
StatedReader = Callable[[str], Sequence[StatedValue]]
# An argument's name in a usage line ("--password PASSWORD", "NEW_PASS").
_ARGUMENT_NAME = rx(r"^[A-Z][A-Z_]{2,}$")


def credential(text: str, reader: StatedReader | None = None) -> Finding | None:
    """The first credential `text` holds. `reader`: where the text states a
    secret's value by its structure; without one, a secret's name side by side
    with "is" or a colon is read by pattern."""
    if reader is not None and _HINT.search(text):
        for stated in reader(text):
            if _stated_credential(stated):
                return Finding("credential", f"a {stated.name.lower()} stated in words")
    if not _ANY_SHAPE.search(text):
        return None
    for name, pattern in PROVIDERS:
        if pattern.search(text):
            return Finding("credential", f"looks like a {name}")
    for pattern, what in (
        (_URL_PASSWORD, "password in a URL"),
        (_CURL_USER, "password in a curl --user"),
        (_AUTH_HEADER, "credential in an Authorization header"),
        (_URL_QUERY_PASSWORD, "password in a URL query"),
    ):
        for match in pattern.finditer(text):
            if looks_secret(match.group(match.lastindex or 1), loose=True):
                return Finding("credential", f"looks like a {what}")
    for pattern in (_STATED_PASSWORD_AR,) if reader is not None else _STATED_PATTERNS:
        for match in pattern.finditer(text):
            name, value = match.group(1), match.group(2).rstrip(".,;)]،")
            continues = bool(text[match.end(2) :].strip(" .,;:!?"))
            # a plain word after words between the name and هي is read as prose
            apart = len(match.group(0).split()) > len(name.split()) + 2
            prose = value.isalpha() and (value.islower() or (apart and not value.isascii()))
            if stated_secret(value) and not (prose and (continues or apart)):
                return Finding("credential", f"a {' '.join(name.split()).lower()} stated in words")
    for pattern in (_ASSIGNMENT, _CAMEL_ASSIGNMENT, _STATED):
        for match in pattern.finditer(text):
            name, value = match.group(1), match.group(2).rstrip(".,;)]")
            prose = name.lower() in PROSE_WORDS  # "JR pass: 7-day", "the key is 4821"
            if looks_secret(value) and (not prose or random_looking(value)):
                return Finding("credential", f"secret assigned to {name}")
    return None


def _stated_credential(stated: StatedValue) -> bool:
    """A stated value is a secret unless it is a placeholder, a reference, an
    argument's name, or a plain word that describes the secret or that the
    sentence goes on from."""
    value = stated.value
    if not stated_secret(value) or _ARGUMENT_NAME.match(value):
        return False
    if value.replace("-", "").isalpha() and not any(c.isupper() for c in value):
        return stated.ends and not stated.describing  # a plain word, any script
    return True


NOT_A_STATED_VALUE = frozenset(
    {"a", "an", "the", "my", "your", "in", "on", "at", "not", "no", "still", "now", "set",
     "wrong", "expired", "changed", "reset", "weak", "strong", "long", "short", "too",
     "stored", "saved", "written", "kept", "required", "needed", "missing", "correct",
     "what", "how", "that", "this", "it", "being", "used", "shared", "same", "case",
     "sensitive", "different", "easy", "hard", "simple", "old", "new",
     "str", "string", "int", "bytes", "text", "optional",
     "هي", "هو", "في", "ليست", "ليس", "خاطئة", "قوية", "ضعيفة"}
)  # fmt: skip


def stated_secret(value: str) -> bool:
    """A value named a password or a PIN: a secret unless it is a placeholder, a
    reference, or a word that says something about it ("is expired"; a plain
    lowercase word that a sentence goes on from, "see the 1Password entry",
    is prose, which the caller checks)."""
    if not value or value.casefold() in NOT_A_STATED_VALUE or value[0] in "<{$%":
        return False
    if _REFERENCE.match(value) or _PLACEHOLDER.match(value) or _NOT_A_VALUE.search(value):
        return False
    return len(value) >= 3


def random_looking(value: str) -> bool:
    """A value no one would write as a word: long, letters mixed with digits
    (not words and numbers joined by dashes), or high entropy."""
    if len(value) < 12 or _WORDISH.match(value):
        return False
    letters = sum(c.isalpha() for c in value)
    digits = sum(c.isdigit() for c in value)
    return (letters >= 3 and digits >= 2) or (len(value) >= 16 and entropy(value) >= 3.5)


def looks_secret(value: str, *, loose: bool = False) -> bool:
    """A real secret rather than a reference, a placeholder or a plain word.
    `loose`: the value sits where only a secret goes (a URL's password)."""
    if _REFERENCE.match(value) or _PLACEHOLDER.match(value) or _NOT_A_VALUE.search(value):
        return False
    if value.startswith("-") or (not loose and _WORDISH.match(value)):
        return False  # a flag, or words joined ("disable-extended-key-format", "7-day-pass")
    if len(value) < (3 if loose else 8):
        return False
    letters = any(c.isalpha() for c in value)
    digits = any(c.isdigit() for c in value)
    symbols = any(not c.isalnum() for c in value)
    mixed_case = any(c.isupper() for c in value) and any(c.islower() for c in value)
    if loose:
        return letters and (digits or symbols or len(value) >= 6)
    if letters and (digits or (symbols and mixed_case)):
        return True
    return len(value) >= 20 and entropy(value) >= 3.5


def entropy(value: str) -> float:
    """Shannon entropy in bits per character."""
    counts = Counter(value)
    n = len(value)
    return -sum(c / n * math.log2(c / n) for c in counts.values())
