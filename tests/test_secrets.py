"""The secret detector (extract's redaction and the Linter's `secret` rule) on real-looking samples,
and its false-positive rate on ordinary code and real transcripts."""

from __future__ import annotations

import json
import random
import string
from pathlib import Path

import pytest

from memcli import secrets
from memcli.secrets import find_secrets, might_contain_secret, redact

REPO = Path(__file__).resolve().parent.parent
_rng = random.Random(20261130)  # samples are built at run time, so no secret-shaped literal is committed


def rand(n: int, alphabet: str = string.ascii_letters + string.digits) -> str:
    return "".join(_rng.choice(alphabet) for _ in range(n))


UPPER_DIGITS = string.ascii_uppercase + string.digits
B64URL = string.ascii_letters + string.digits + "-_"

# (expected kind, text, the secret value that must disappear)
SAMPLES: list[tuple[str, str, str]] = []


def sample(kind: str, template: str, secret: str) -> None:
    SAMPLES.append((kind, template.format(secret), secret))


sample("aws-access-key-id", "export AWS_ACCESS_KEY_ID={}", "AKIA" + rand(16, UPPER_DIGITS))
sample("aws-access-key-id", "creds: ASIA{}".replace("ASIA{}", "{}"), "ASIA" + rand(16, UPPER_DIGITS))
sample("aws-secret-access-key", "aws_secret_access_key = {}", rand(40, string.ascii_letters + "0123456789/+"))
sample("github-token", "git clone https://x-access-token@github.com/o/r  # token {}", "ghp_" + rand(36))
sample("github-token", "GH_PAT: {}", "github_pat_" + rand(22) + "_" + rand(59))
sample("github-token", "Authorization header gho token {}", "gho_" + rand(36))
sample("anthropic-api-key", "ANTHROPIC_API_KEY={}", "sk-ant-api03-" + rand(93, B64URL) + "AA")
sample("openai-api-key", "client = OpenAI(api_key='{}')", "sk-proj-" + rand(74, B64URL))
sample("openai-api-key", "key {} in old format", "sk-" + rand(20) + "T3BlbkFJ" + rand(20))
sample("openai-api-key", "OPENAI_KEY {}", "sk-" + rand(48))
sample("google-api-key", "https://maps.googleapis.com/maps/api/js?key={}", "AIza" + rand(35, B64URL))
sample("google-oauth-token", "access token: {}", "ya29." + rand(120, B64URL))
sample("google-oauth-secret", '"client_secret": "{}"', "GOCSPX-" + rand(28, B64URL))
sample("slack-token", "SLACK_BOT_TOKEN={}", "xoxb-" + rand(12, string.digits) + "-" + rand(13, string.digits)
       + "-" + rand(24))
sample("slack-webhook", "curl -X POST {} -d '{{}}'",
       "https://hooks.slack.com/services/T" + rand(8, UPPER_DIGITS) + "/B" + rand(8, UPPER_DIGITS)
       + "/" + rand(24))
sample("stripe-key", "stripe.api_key = \"{}\"", "sk_live_" + rand(24))
sample("stripe-key", "webhook secret {}", "whsec_" + rand(32))
sample("huggingface-token", "huggingface-cli login --token {}", "hf_" + rand(34, string.ascii_letters))
sample("gitlab-token", "PRIVATE-TOKEN: {}", "glpat-" + rand(20, B64URL))
sample("npm-token", "//registry.npmjs.org/:_authToken={}", "npm_" + rand(36))
sample("pypi-token", "password = {}", "pypi-AgEIcHlwaS5vcmc" + rand(60, B64URL))
sample("sendgrid-key", "SENDGRID_API_KEY={}", "SG." + rand(22, B64URL) + "." + rand(43, B64URL))
sample("jwt", "Cookie: session={}", "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0."
       + rand(43, B64URL))
sample("bearer-token", "curl -H 'Authorization: Bearer {}' https://api.example.com", rand(40, B64URL + "."))
sample("basic-auth", "Authorization: Basic {}", "dXNlcjpwYXNzd29yZDEyMzQ=")
sample("url-password", "DATABASE_URL=postgres://app:{}@db.internal:5432/app", "s3cr3t-" + rand(10))
sample("url-password", "git remote add origin https://bob:{}@git.example.com/x.git", rand(16))
sample("private-key", "key:\n{}\nrest", "-----BEGIN RSA PRIVATE KEY-----\n" + rand(64) + "\n" + rand(64)
       + "\n-----END RSA PRIVATE KEY-----")
sample("private-key", "{}", "-----BEGIN OPENSSH PRIVATE KEY-----\n" + rand(70)
       + "\n-----END OPENSSH PRIVATE KEY-----")
sample("credential-assignment", "DB_PASSWORD={}", "Tr0ub4dor&3x")
sample("credential-assignment", '{{"username": "admin", "password": "{}"}}', "Summer2024!pw")
sample("credential-assignment", "secret_key_base: {}", rand(64, string.hexdigits))
sample("credential-assignment", "client_secret = '{}'", rand(32))
sample("credential-assignment", "ENCRYPTION_KEY={}", rand(32) + "==")
sample("credential-assignment", "パスワード設定: api_key: {} を使う", rand(24))
sample("credential-assignment", '{{"cmd": "export API_TOKEN=\\"{}\\""}}', rand(30))
sample("credential-flag", "mysql -u root --password {} db", "9xQ!" + rand(10))
# Human-chosen passwords repeat themselves (low entropy); a password key is signal enough.
sample("credential-assignment", "DB_PASSWORD={}", "hunter2hunter2")
sample("credential-assignment", "---\ncreated_at: 2026-01-01\npassword: {}\n---\nBody.\n", "hunter2hunter2")
sample("credential-assignment", "smtp_passwd: '{}'", "letmein2024")


@pytest.mark.parametrize("kind, text, secret", SAMPLES,
                         ids=[f"{k}-{i}" for i, (k, _, _) in enumerate(SAMPLES)])
def test_every_kind_is_found_and_redacted(kind: str, text: str, secret: str) -> None:
    kinds = [m.kind for m in find_secrets(text)]
    assert kind in kinds
    clean, count = redact(text)
    assert count >= 1 and f"[REDACTED:{kind}]" in clean
    assert secret not in clean


def test_a_transcript_full_of_secrets_keeps_its_prose() -> None:
    text = "\n".join(f"step {i}: use {t}" for i, (_, t, _) in enumerate(SAMPLES))
    clean, count = redact(text)
    assert count >= len(SAMPLES)
    for _, _, secret in SAMPLES:
        assert secret not in clean
    assert all(f"step {i}: use" in clean for i in range(len(SAMPLES)))
    assert list(find_secrets(clean)) == []  # redaction is a fixed point


ORDINARY = [
    "password = os.environ['DB_PASSWORD']",
    "token = get_token(user)",
    "api_key: ${OPENAI_API_KEY}",
    'password: "<your password here>"',
    "secret = settings.SECRET_KEY",
    "env.OPENAI_API_KEY = 'proxy-handled';",
    "max_output_tokens: 12000",
    "sort_key = lambda x: x.name",
    "primary_key=True",
    "self.token = token",
    "Bearer authentication is described in RFC 6750.",
    "The bearer token is sent in the Authorization header.",
    "postgres://user:password@localhost/db",
    "ssh://git@github.com:22/owner/repo.git",
    "https://example.com/path?a=1&b=2",
    "commit 4b2227c71f82193cf6edba5dd2117962782cacf2",
    "sha256: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "uuid 019e1625-789d-76c0-80ab-3724b5ddb799",
    "foreign_key: users.id",
    "password_hash = bcrypt.hash(pw)",
    "token_type: bearer",
    "export MEMCLI_STATE_DIR=/tmp/state",
    "SECRET_FILE=/run/secrets/db_password",
    "パスワードは環境変数から読む (password = os.getenv('PW'))",
    "tokens: 12,345 in, 678 out; cost $0.0123",
    "--password-file ~/.pgpass",
    "password: optional",
    "password_min_length: 12345678",
    "password: read-from-vault",
    "the passwd file is /etc/passwd",
    "password_reset: enabled_by_default",
    "DB_PASSWORD=${DB_PASSWORD:-changeme}",
]


@pytest.mark.parametrize("text", ORDINARY)
def test_ordinary_code_and_prose_is_not_a_secret(text: str) -> None:
    assert [m.kind for m in find_secrets(text)] == []


# Every file where the detector may hit, each one explained. Anything else is a false positive.
EXPECTED_FILES = {
    # The Linter rule's docstring shows its failing examples (AWS's documented example key
    # AKIAIOSFODNN7EXAMPLE, a postgres URL with a password): genuine detections, on purpose.
    "memcli/lint/rules/secret.py",
    # gitleaks' vendored rules: their regexes and allowlists spell vendors' prefixes.
    "memcli/secrets/gitleaks.py",
}


def _files(root: Path, suffixes: tuple[str, ...]) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.is_file() and p.suffix in suffixes
                  and "__pycache__" not in p.parts)


def test_no_false_positives_on_memcli_source_and_real_transcripts() -> None:
    files = _files(REPO / "memcli", (".py",)) + _files(REPO / "memcli" / "prompts", (".md",))
    files += _files(REPO / "tests" / "fixtures" / "transcripts", (".jsonl", ".json", ".md"))
    files += _files(REPO / "examples", (".md", ".toml"))
    assert len(files) > 50
    scanned = 0
    hits = set()
    for path in files:
        text = path.read_text(encoding="utf-8", errors="replace")
        scanned += len(text)
        for match in find_secrets(text):
            hits.add((path.relative_to(REPO).as_posix(), match.kind))
    assert scanned > 1_000_000
    unexpected = sorted(h for h in hits if h[0] not in EXPECTED_FILES)
    assert unexpected == [], f"unexpected secret hits (false positives?): {unexpected}"
    assert ("memcli/lint/rules/secret.py", "aws-access-key-id") in hits  # the scan does see real ones


def test_json_lines_stay_parseable_after_redaction() -> None:
    line = json.dumps({"role": "user", "content": "my key is " + "sk-proj-" + rand(74, B64URL)})
    clean, count = redact(line)
    assert count == 1 and json.loads(clean)["content"] == "my key is [REDACTED:openai-api-key]"


def test_prefilter_never_skips_a_secret() -> None:
    assert all(p.hints for p in secrets._PATTERNS)  # might_contain_secret relies on this
    assert all(might_contain_secret(text) for _, text, _ in SAMPLES)
    assert not might_contain_secret("plain prose about SQLite indexes and 日本語 text")
