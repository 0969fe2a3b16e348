"""The catalogue of credential shapes redacted after the reference's four patterns (issue 14).

Each row is one kind of credential: a stable name, what it is, a Python regex (re.ASCII; the
named group `secret`, when present, is the only part replaced), the lowercase literals one of
which every match contains (a cheap prefilter), and a canary template used by the tests and
the docs (`{a24}` = 24 random characters of class `a`, see CANARY_CLASSES).

The shapes were learned from the public descriptions in the gitleaks default rule set
(config/gitleaks.toml), Yelp's detect-secrets plugins and trufflehog's detector list, and from
the vendors' own token-format announcements; the regexes here are written anew for this
project. Every pattern is linear-time on hostile input: a left guard (negative lookbehind)
or a literal lets a match start at most once per run, every repetition is bounded or
possessive, and adjacent repetitions have disjoint classes, so nothing backtracks
quadratically (tests/provider/test_secret_shapes.py feeds each one 1 MB of near-misses).
Secret values never start with `[`, so a shape does not re-count earlier `[REDACTED]` text.
"""

from __future__ import annotations

import collections
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

__all__ = [
    "CANARY_CLASSES",
    "SHAPES",
    "CompiledShape",
    "SecretShape",
    "compiled_shapes",
    "expand_canary",
    "random_looking",
]

#: Character classes of canary template runs, e.g. `{h32}` = 32 lowercase hex digits.
CANARY_CLASSES: Final = {
    "d": "0123456789",
    "h": "0123456789abcdef",
    "A": "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789",
    "a": "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
    "u": "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-",
    "b": "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/",
    "B": "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L",
}


#: Decides whether one match is a secret: (the matched secret text, the whole value) -> bool.
Acceptor = Callable[[str, str], bool]


@dataclass(frozen=True, slots=True)
class SecretShape:
    """One credential shape: name, description, regex, prefilter literals, canary template.

    `accept`, when set, is asked about each match; a match it declines is left as it is and
    not counted (the context-free AWS secret key: only random-looking tokens).
    """

    name: str
    title: str
    regex: str
    hints: tuple[str, ...]
    canary: str
    ignore_case: bool = False
    accept: Acceptor | None = None


@dataclass(frozen=True, slots=True)
class CompiledShape:
    """A shape's compiled pattern and prefilter, ready to run over text."""

    shape: SecretShape
    pattern: re.Pattern[str]

    def may_match(self, lowered: str) -> bool:
        """Whether one of the shape's literals occurs in the lowercased text (or none is set)."""
        return not self.shape.hints or any(hint in lowered for hint in self.shape.hints)


_NOT_REDACTED: Final = r"(?!\[REDACTED)"
#: A quote, possibly escaped (JSON inside a JSON string: tool-call arguments, logs).
_QUOTE: Final = r"(?:\\{0,3}[\"'])"
_SEP: Final = _QUOTE + r"?\s{0,4}(?:=>|:=|[:=])\s{0,4}" + _QUOTE + "?"
_PEM_BODY: Final = r"(?:[^-]++|-(?!----))*+"
_UUID: Final = r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"


def _shape(
    name: str,
    title: str,
    regex: str,
    hints: tuple[str, ...],
    canary: str,
    *,
    i: bool = False,
    accept: Acceptor | None = None,
) -> SecretShape:
    """One catalogue row; `i` makes the pattern case-insensitive."""
    return SecretShape(name, title, regex, hints, canary, ignore_case=i, accept=accept)


#: Bits per character above which a 40-character base64 token counts as random (gitleaks'
#: entropy idea): random base64 of that length scores about 4.8 (99.9 % above 4.3), hex at
#: most 4.0, and long English identifiers about 3.7 to 4.2.
RANDOM_BITS: Final = 4.3
#: An AWS access key id anywhere in the value makes any 40-character base64 token beside it
#: its secret key, whatever its entropy.
_AWS_KEY_ID: Final = re.compile(
    r"(?<![A-Z0-9])(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z0-9]{16}(?![A-Z0-9])"
)


def _bits_per_character(text: str) -> float:
    """Shannon entropy of the text's characters, in bits per character."""
    size = len(text)
    counts = collections.Counter(text).values()
    return -sum(n / size * math.log2(n / size) for n in counts)


def random_looking(token: str, value: str) -> bool:
    """A bare AWS secret access key: beside a key id, or mixed case and random-looking."""
    if _AWS_KEY_ID.search(value) is not None:
        return True
    mixed = token.lower() != token and token.upper() != token
    return mixed and _bits_per_character(token) >= RANDOM_BITS


#: Words for "password" the prose shape knows (non-ASCII ones in their usual cases, since
#: case folding is ASCII-only here): English, German, French, Spanish, Portuguese, Italian,
#: Dutch, Swedish, Polish, Finnish, Czech, Hungarian, Turkish, Russian, Japanese, Chinese,
#: Korean.
_PASSWORD_WORDS: Final = (
    r"pass(?:word|wort|wd|code|phrase)|pwd|pw|kennwort|mot de passe|contrase(?:ñ|n)a|senha"
    r"|parola(?: d'ordine)?|wachtwoord|l(?:ö|Ö|o)senord|has(?:ł|l)o|salasana|heslo"
    r"|jelsz(?:ó|Ó|o)|(?:ş|Ş|s)ifre|[Пп]ароль|ПАРОЛЬ|パスワード|密码|密碼|비밀번호"
)
#: "is" in the same languages, for "the password is …".
_IS_WORDS: Final = r"is|was|ist|war|est|es|era|é|è|är|jest|on|je|это"


SHAPES: Final[tuple[SecretShape, ...]] = (
    _shape(
        "aws-access-key-id",
        "AWS access key id (AKIA long-term, ASIA temporary, and the other IAM id prefixes)",
        r"(?<![A-Z0-9])(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AIPA|ANPA|ANVA|APKA|AROA|ASCA|A3T[A-Z0-9])"
        r"[A-Z0-9]{16}(?![A-Z0-9])",
        (
            "akia",
            "asia",
            "abia",
            "acca",
            "agpa",
            "aida",
            "aipa",
            "anpa",
            "anva",
            "apka",
            "aroa",
            "asca",
            "a3t",
        ),
        "ASIA{A16}",
    ),
    _shape(
        "aws-secret-access-key",
        "AWS secret access key: 40 base64 characters after an aws…secret / secret_access_key name",
        r"(?:aws[a-z0-9_.-]{0,24}?(?:secret|sk)[a-z0-9_.-]{0,24}|secret[_.-]?access[_.-]?key)"
        + _SEP
        + r"(?P<secret>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])",
        ("aws", "secret"),
        "aws_secret_access_key = {b40}",
        i=True,
    ),
    _shape(
        "aws-session-token",
        "AWS session token after an (aws_)session_token name",
        r"(?<![a-z0-9])(?:aws[_.-]?)?session[_.-]?token"
        + _SEP
        + r"(?P<secret>[A-Za-z0-9/+=]{16,8192}+)",
        ("session",),
        "AWS_SESSION_TOKEN={b180}",
        i=True,
    ),
    _shape(
        "github-fine-grained-pat",
        "GitHub fine-grained personal access token (github_pat_)",
        r"github_pat_[A-Za-z0-9_]{22,255}+",
        ("github_pat_",),
        "github_pat_{a22}_{a59}",
    ),
    _shape(
        "github-token",
        "GitHub classic, OAuth, user-to-server, server-to-server and refresh tokens (ghp_ … ghr_)",
        r"(?<![A-Za-z0-9_])gh[pousr]_[A-Za-z0-9]{36,251}+",
        ("ghp_", "gho_", "ghu_", "ghs_", "ghr_"),
        "ghs_{a36}",
    ),
    _shape(
        "gitlab-token",
        "GitLab personal, pipeline, deploy, runner and other tokens (glpat- and siblings)",
        r"(?<![A-Za-z0-9_])gl(?:pat|ptt|dt|rt|cbt|oas|soat|ffct|imt|agent)-[A-Za-z0-9_-]{20,64}+",
        (
            "glpat-",
            "glptt-",
            "gldt-",
            "glrt-",
            "glcbt-",
            "gloas-",
            "glsoat-",
            "glffct-",
            "glimt-",
            "glagent-",
        ),
        "glpat-{u20}",
    ),
    _shape(
        "slack-token",
        "Slack bot, user, app-level legacy, refresh and config tokens (xoxb- xoxp- xoxa- …)",
        r"(?<![A-Za-z0-9])xox[baprse]-[A-Za-z0-9-]{10,250}+",
        ("xox",),
        "xoxp-{d11}-{d12}-{d13}-{h32}",
    ),
    _shape(
        "slack-app-token",
        "Slack app-level token (xapp-)",
        r"(?<![A-Za-z0-9])xapp-[0-9]-[A-Za-z0-9-]{10,250}+",
        ("xapp-",),
        "xapp-1-{A11}-{d13}-{h64}",
    ),
    _shape(
        "slack-webhook-url",
        "Slack incoming-webhook and workflow URL (hooks.slack.com)",
        r"hooks\.slack\.com/(?:services|workflows|triggers)/(?P<secret>[A-Za-z0-9_/+-]{8,300}+)",
        ("hooks.slack.com",),
        "https://hooks.slack.com/services/T{A10}/B{A10}/{a24}",
        i=True,
    ),
    _shape(
        "google-api-key",
        "Google Cloud / Firebase API key (AIza)",
        r"(?<![A-Za-z0-9_-])AIza[0-9A-Za-z_-]{35}",
        ("aiza",),
        "AIza{u35}",
    ),
    _shape(
        "google-oauth-client-secret",
        "Google OAuth client secret (GOCSPX-)",
        r"GOCSPX-[A-Za-z0-9_-]{28}",
        ("gocspx-",),
        "GOCSPX-{u28}",
    ),
    _shape(
        "google-oauth-access-token",
        "Google OAuth access token (ya29.)",
        r"(?<![A-Za-z0-9_-])ya29\.[A-Za-z0-9_-]{20,2048}+",
        ("ya29.",),
        "ya29.{u120}",
    ),
    _shape(
        "gcp-service-account-private-key",
        'GCP service-account JSON written as text: the "private_key" / "private_key_id" values',
        _QUOTE
        + r"?private[_-]?key(?:[_-]?id)?"
        + _QUOTE
        + r"?\s{0,4}[:=]\s{0,4}"
        + _QUOTE
        + _NOT_REDACTED
        + r"(?P<secret>(?:[^\"'\\\n]|\\.){8,20000})",
        ("private",),
        '{"type": "service_account", "private_key_id": "{h40}", "private_key": '
        '"-----BEGIN PRIVATE KEY-----\\n{b64}\\n{b64}\\n-----END PRIVATE KEY-----\\n"}',
        i=True,
    ),
    _shape(
        "json-web-token",
        "JSON Web Token (eyJ….eyJ….signature), signed or unsigned",
        r"(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{8,4096}+\.eyJ[A-Za-z0-9_-]{8,16384}+"
        r"\.[A-Za-z0-9_-]{0,4096}+",
        ("eyj",),
        "eyJ{u30}.eyJ{u60}.{u43}",
    ),
    _shape(
        "openssh-private-key",
        "OpenSSH private key block (a truncated block is redacted to its end)",
        r"-----BEGIN OPENSSH PRIVATE KEY-----"
        + _PEM_BODY
        + r"(?:-----END OPENSSH PRIVATE KEY-----)?",
        ("-----begin openssh",),
        "-----BEGIN OPENSSH PRIVATE KEY-----\n{b70}\n{b70}\n-----END OPENSSH PRIVATE KEY-----",
    ),
    _shape(
        "pem-private-key",
        "PEM private key block: PKCS#8, RSA, EC, DSA, encrypted (truncated blocks too)",
        r"-----BEGIN[ A-Z0-9]{0,40}PRIVATE KEY-----"
        + _PEM_BODY
        + r"(?:-----END[ A-Z0-9]{0,40}PRIVATE KEY-----)?",
        ("private key-----",),
        "-----BEGIN RSA PRIVATE KEY-----\n{b64}\n{b64}\n-----END RSA PRIVATE KEY-----",
    ),
    _shape(
        "pgp-private-key-block",
        "PGP / GPG armored private key block",
        r"-----BEGIN PGP PRIVATE KEY BLOCK-----"
        + _PEM_BODY
        + r"(?:-----END PGP PRIVATE KEY BLOCK-----)?",
        ("-----begin pgp private key block",),
        "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n{b64}\n={b4}\n"
        "-----END PGP PRIVATE KEY BLOCK-----",
    ),
    _shape(
        "basic-auth-url",
        "Password in a URL's userinfo (scheme://user:password@host)",
        r"://[^\s:/?#@\"'<>\[\]\\]{0,256}+:(?P<secret>[^\s/?#@\"'<>\[\]\\]{1,256}+)@",
        ("://",),
        "postgres://admin:{a16}@db.internal:5432/app",
    ),
    _shape(
        "authorization-header-credential",
        "Credential after an Authorization scheme (Basic, Digest, Token…) the reference leaves",
        r"\b(?:proxy-)?authorization[\"']?\s{0,4}[:=]\s{0,4}[\"']?"
        r"(?:\[REDACTED\]|basic|digest|token|api-?key|negotiate|ntlm)[ \t]{1,4}"
        + _NOT_REDACTED
        + r"(?P<secret>[A-Za-z0-9+/=._~-]{6,8192}+)(?!:)",
        ("authorization",),
        "Authorization: Basic {b24}==",
        i=True,
    ),
    _shape(
        "azure-storage-account-key",
        "Azure storage / Service Bus key in a connection string (AccountKey=, SharedAccessKey=)",
        r"(?:AccountKey|SharedAccessKey|SharedKey)\s{0,4}=\s{0,4}"
        + _NOT_REDACTED
        + r"(?P<secret>[A-Za-z0-9+/]{20,200}+={0,2})",
        ("accountkey", "sharedaccesskey", "sharedkey"),
        "DefaultEndpointsProtocol=https;AccountName=acme;AccountKey={b86}==;"
        "EndpointSuffix=core.windows.net",
        i=True,
    ),
    _shape(
        "azure-sas-signature",
        "Azure shared-access-signature sig= parameter",
        r"[?&;]sig=(?P<secret>[A-Za-z0-9%+/=_-]{16,512}+)",
        ("sig=",),
        "https://acme.blob.core.windows.net/c/f.txt?sv=2022-11-02&sr=b&sp=r&sig={a43}%3D",
        i=True,
    ),
    _shape(
        "azure-ad-client-secret",
        "Microsoft Entra ID (Azure AD) application client secret (…Q~…)",
        r"(?<![A-Za-z0-9_~.-])[A-Za-z0-9_~.]{3}[0-9]Q~[A-Za-z0-9_~.-]{31,34}(?![A-Za-z0-9_~.-])",
        ("q~",),
        "{a3}8Q~{a34}",
    ),
    _shape(
        "npm-token",
        "npm access token (npm_)",
        r"(?<![A-Za-z0-9_])npm_[A-Za-z0-9]{36}(?![A-Za-z0-9])",
        ("npm_",),
        "npm_{a36}",
    ),
    _shape(
        "pypi-token",
        "PyPI / TestPyPI upload token (pypi-AgE…)",
        r"pypi-AgE[A-Za-z0-9_-]{40,8192}+",
        ("pypi-age",),
        "pypi-AgEIcHlwaS5vcmc{u120}",
    ),
    _shape(
        "huggingface-token",
        "Hugging Face user or organization token (hf_, api_org_)",
        r"(?<![A-Za-z0-9_])(?:hf_|api_org_)[A-Za-z0-9]{30,64}+",
        ("hf_", "api_org_"),
        "hf_{a34}",
    ),
    _shape(
        "sendgrid-api-key",
        "SendGrid API key (SG.x.y)",
        r"(?<![A-Za-z0-9_])SG\.[A-Za-z0-9_-]{16,32}\.[A-Za-z0-9_-]{30,64}",
        ("sg.",),
        "SG.{u22}.{u43}",
    ),
    _shape(
        "stripe-secret-key",
        "Stripe secret and restricted keys (sk_live_, sk_test_, rk_live_, rk_test_)",
        r"(?<![A-Za-z0-9_])[sr]k_(?:live|test)_[A-Za-z0-9]{10,247}+",
        ("sk_live_", "sk_test_", "rk_live_", "rk_test_"),
        "rk_live_{a24}",
    ),
    _shape(
        "stripe-webhook-secret",
        "Stripe webhook signing secret (whsec_)",
        r"whsec_[A-Za-z0-9+/=]{24,128}+",
        ("whsec_",),
        "whsec_{a32}",
    ),
    _shape(
        "openai-api-key",
        "OpenAI project, service-account, admin and legacy keys (sk-proj-, sk-svcacct-, …)",
        r"(?<![A-Za-z0-9_-])sk-(?:(?:proj|svcacct|admin)-[A-Za-z0-9_-]{20,512}+"
        r"|[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20})",
        ("sk-",),
        "sk-proj-{u80}",
    ),
    _shape(
        "anthropic-api-key",
        "Anthropic API and admin keys (sk-ant-api03-, sk-ant-admin01-)",
        r"(?<![A-Za-z0-9_-])sk-ant-(?:api|admin|oat|ort)[0-9]{2}-[A-Za-z0-9_-]{20,512}+",
        ("sk-ant-",),
        "sk-ant-api03-{u93}AA",
    ),
    _shape(
        "twilio-api-key",
        "Twilio API key SID (SK + 32 hex)",
        r"(?<![A-Za-z0-9])SK[0-9a-fA-F]{32}(?![A-Za-z0-9])",
        ("sk",),
        "SK{h32}",
    ),
    _shape(
        "twilio-account-sid",
        "Twilio account SID (AC + 32 hex), half of a Twilio credential pair",
        r"(?<![A-Za-z0-9])AC[0-9a-f]{32}(?![A-Za-z0-9])",
        ("ac",),
        "AC{h32}",
    ),
    _shape(
        "discord-bot-token",
        "Discord bot token (id.timestamp.hmac)",
        r"(?<![A-Za-z0-9_-])[MNO][A-Za-z0-9_-]{23,27}\.[A-Za-z0-9_-]{6,7}\.[A-Za-z0-9_-]{27,40}"
        r"(?![A-Za-z0-9_-])",
        (),
        "M{a25}.{u6}.{u38}",
    ),
    _shape(
        "discord-webhook-url",
        "Discord webhook URL (id and token)",
        r"discord(?:app)?\.com/api/webhooks/(?P<secret>[0-9]{5,30}/[A-Za-z0-9_-]{30,100}+)",
        ("discord",),
        "https://discord.com/api/webhooks/{d18}/{u68}",
        i=True,
    ),
    _shape(
        "telegram-bot-token",
        "Telegram bot token (bot id:AA…)",
        r"(?<![0-9])[0-9]{5,16}:AA[A-Za-z0-9_-]{30,40}(?![A-Za-z0-9_-])",
        (":aa",),
        "{d10}:AA{u33}",
    ),
    _shape(
        "heroku-api-key",
        "Heroku API key: a UUID after a heroku… name",
        r"heroku[a-z0-9_ .-]{0,30}?[\s\"':=]{1,8}(?P<secret>" + _UUID + ")",
        ("heroku",),
        "heroku deploy key {h8}-{h4}-{h4}-{h4}-{h12}",
        i=True,
    ),
    _shape(
        "heroku-platform-token",
        "Heroku platform API token (HRKU-)",
        r"HRKU-[A-Za-z0-9_-]{40,100}+",
        ("hrku-",),
        "HRKU-AA{u58}",
    ),
    _shape(
        "digitalocean-token",
        "DigitalOcean personal, OAuth and refresh tokens (dop_v1_, doo_v1_, dor_v1_)",
        r"(?<![A-Za-z0-9_])do[opr]_v1_[a-f0-9]{64}",
        ("_v1_",),
        "dop_v1_{h64}",
    ),
    _shape(
        "shopify-token",
        "Shopify access, custom-app, private-app and shared-secret tokens (shpat_ …)",
        r"(?<![A-Za-z0-9_])shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}",
        ("shp",),
        "shpat_{h32}",
    ),
    _shape(
        "mailgun-api-key",
        "Mailgun API key (key- + 32)",
        r"(?<![A-Za-z0-9_-])key-[0-9a-zA-Z]{32}(?![A-Za-z0-9])",
        ("key-",),
        "key-{a32}",
    ),
    _shape(
        "mailchimp-api-key",
        "Mailchimp API key (32 hex + -usN data centre)",
        r"(?<![A-Za-z0-9])[0-9a-f]{32}-us[0-9]{1,2}(?![0-9])",
        ("-us",),
        "{h32}-us21",
    ),
    _shape(
        "square-token",
        "Square access token and OAuth secret (sq0atp-, sq0csp-)",
        r"(?<![A-Za-z0-9_-])sq0(?:atp|csp)-[A-Za-z0-9_-]{22,60}+",
        ("sq0",),
        "sq0csp-{u43}",
    ),
    _shape(
        "atlassian-api-token",
        "Atlassian (Jira, Confluence) API token (ATATT3)",
        r"ATATT3[A-Za-z0-9_=-]{180,300}+",
        ("atatt3",),
        "ATATT3{u186}",
    ),
    _shape(
        "linear-api-key",
        "Linear API key (lin_api_)",
        r"lin_api_[A-Za-z0-9]{40}",
        ("lin_api_",),
        "lin_api_{a40}",
    ),
    _shape(
        "databricks-token",
        "Databricks personal access token (dapi + 32 hex)",
        r"(?<![A-Za-z0-9_])dapi[a-f0-9]{32}(?:-[0-9])?(?![A-Za-z0-9])",
        ("dapi",),
        "dapi{h32}",
    ),
    _shape(
        "postman-api-key",
        "Postman API key (PMAK-)",
        r"PMAK-[a-f0-9]{24}-[a-f0-9]{34}",
        ("pmak-",),
        "PMAK-{h24}-{h34}",
    ),
    _shape(
        "new-relic-key",
        "New Relic user, admin, insights and browser keys (NRAK-, NRAA-, NRII-, NRJS-)",
        r"NR(?:AK|AA|II|JS)-[A-Za-z0-9]{27}",
        ("nrak-", "nraa-", "nrii-", "nrjs-"),
        "NRAK-{A27}",
    ),
    _shape(
        "grafana-token",
        "Grafana Cloud and service-account tokens (glc_, glsa_)",
        r"(?<![A-Za-z0-9_])(?:glc_[A-Za-z0-9+/]{32,400}+={0,2}|glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8})",
        ("glc_", "glsa_"),
        "glsa_{a32}_{h8}",
    ),
    _shape(
        "age-secret-key",
        "age encryption secret key (AGE-SECRET-KEY-1)",
        r"AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}",
        ("age-secret-key-1",),
        "AGE-SECRET-KEY-1{B58}",
    ),
    _shape(
        "doppler-token",
        "Doppler personal, service, service-account and CLI tokens (dp.pt. …)",
        r"dp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9]{40,44}",
        ("dp.",),
        "dp.pt.{a43}",
    ),
    _shape(
        "query-credential",
        "Credential in a URL query (?key=, &access_token=, &api_key=, &X-Amz-Signature=, …)",
        r"[?&;](?:key|api[_-]?key|access[_-]?token|auth[_-]?token|token|secret"
        r"|client[_-]?secret|password|passwd|pwd|signature|x-amz-signature|x-amz-credential"
        r"|x-amz-security-token|x-goog-signature|x-goog-credential)"
        r"=(?P<secret>[^&#\s\"'<>\[\]\\]{1,4096}+)",
        ("=",),
        "https://maps.example.com/api/geocode?address=x&key={a39}&q=1",
        i=True,
    ),
    _shape(
        "aws-secret-access-key-bare",
        "AWS secret access key with no name beside it: a 40-character base64 token that shares "
        "its value with an AWS access key id, or is mixed-case and looks random (entropy at "
        "least 4.3 bits per character)",
        r"(?<![A-Za-z0-9/+_-])(?P<secret>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=_-])",
        (),
        "{b40}",
        accept=random_looking,
    ),
    _shape(
        "password-in-prose",
        "A password in running text: `password: …`, `pwd=…`, `the password is …` (with a digit "
        "or symbol), in English and 16 other languages",
        r"(?<![A-Za-z0-9_])(?:"
        + _PASSWORD_WORDS
        + r")(?:\s{0,4}(?:=>|:=|[:=：])\s{0,4}[\"'`]?|(?:\s{1,4}(?:"
        + _IS_WORDS
        + r")\s{1,4}|\s{0,4}(?:は|是|는)\s{0,4})[\"'`]?(?=[^\s\"'`<>]{0,255}?"
        + r"[^A-Za-z\s\"'`<>.,;:!?]))"
        + _NOT_REDACTED
        + r"(?P<secret>[^\s\"'`<>]{4,256}+)",
        (
            "pass",
            "pw",
            "kennwort",
            "contrase",
            "senha",
            "parola",
            "wachtwoord",
            "senord",
            "hasło",
            "haslo",
            "salasana",
            "heslo",
            "jelsz",
            "şifre",
            "sifre",
            "пароль",
            "パスワード",
            "密码",
            "密碼",
            "비밀번호",
        ),
        "the vault password is {a12}-{d4}",
        i=True,
    ),
    _shape(
        "secret-assignment",
        'name=value / "name": "value" for names the reference misses (private_key, …)',
        r"(?<![A-Za-z0-9_-])(?:[A-Za-z0-9]{1,40}[_-]){0,6}"
        r"(?:private[_-]?key|secret[_-]?(?:access[_-]?)?key|session[_-]?token"
        r"|client[_-]?secret|auth[_-]?token|passwd|passphrase|credentials?)"
        + _SEP
        + _NOT_REDACTED
        + r"(?P<secret>[^\"'\s,}\\]{4,4096}+)(?!\s{0,4}[:=])",
        ("private", "secret", "session", "auth", "passwd", "passphrase", "credential"),
        "db_passphrase = {a20}",
        i=True,
    ),
)


def compiled_shapes() -> tuple[CompiledShape, ...]:
    """Every catalogued shape compiled (re.ASCII, plus IGNORECASE where the shape says)."""
    return tuple(
        CompiledShape(
            shape=shape,
            pattern=re.compile(shape.regex, re.ASCII | (re.IGNORECASE if shape.ignore_case else 0)),
        )
        for shape in SHAPES
    )


_CANARY_RUN: Final = re.compile(r"\{([A-Za-z])([0-9]+)\}")


def expand_canary(template: str, choose: Callable[[str], str]) -> tuple[str, tuple[str, ...]]:
    """A canary from a template, and its random runs; `choose` picks one character of a class.

    Tests build their secrets at run time this way, so no credential-shaped literal is ever
    committed (secret scanners and push protection would rightly flag one).
    """
    runs: list[str] = []

    def fill(match: re.Match[str]) -> str:
        alphabet = CANARY_CLASSES[match.group(1)]
        run = "".join(choose(alphabet) for _ in range(int(match.group(2))))
        runs.append(run)
        return run

    return _CANARY_RUN.sub(fill, template), tuple(runs)
