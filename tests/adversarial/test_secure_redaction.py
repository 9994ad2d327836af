"""Redaction on 38 realistic formats, with CJK text right around the secret, full-width and
zero-width-split tokens and a token split by a newline (issue #42, item 3). Every sample is built
at run time, so no secret-shaped literal is committed. The false-positive count over the real
transcripts is measured by bench/redaction_bench.py (docs/performance.md)."""

from __future__ import annotations

import base64
import random
import string

import pytest

from memcli.lint import lint
from memcli.secrets import find_secrets, redact
from memcli.workspace import Workspace

_rng = random.Random(42042)
AZ09 = string.ascii_letters + string.digits


def r(n: int, alphabet: str = AZ09) -> str:
    return "".join(_rng.choice(alphabet) for _ in range(n))


def fullwidth(text: str) -> str:
    return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in text)


AKIA = "AKIA" + r(16, string.ascii_uppercase + string.digits)
AWS_SECRET = r(18) + "/" + r(10) + "+" + r(10)
GHP = "ghp_" + r(36)
GLPAT = "glpat-" + r(20)
OPENAI = "sk-proj-" + r(74, AZ09 + "-_")
SLACK = "xoxb-" + r(12, string.digits) + "-" + r(13, string.digits) + "-" + r(24)
NPM = "npm_" + r(36)
STRIPE = "sk_live_" + r(24)
PW = "Xy7#kd" + r(4) + "9!"  # a human password: mixed, with punctuation
DOCKER_AUTH = base64.b64encode(f"deploy:{PW}".encode()).decode()
AZURE_KEY = r(86) + "=="
BEARER = r(40)

# (name, text, the secret that must disappear)
FORMATS: list[tuple[str, str, str]] = [
    ("netrc-one-line", f"machine api.example.com login bob password {PW}", PW),
    ("netrc-lines", f"machine api.example.com\n  login bob\n  password {PW}\n", PW),
    ("yaml-single-quoted-short", "db:\n  password: 'ab12CD!'\n", "ab12CD!"),
    ("yaml-double-quoted", f'db_password: "{PW}"\n', PW),
    ("yaml-passphrase-with-spaces", "passphrase: 'correct horse battery staple 9'\n",
     "correct horse battery staple 9"),
    ("json-password", f'{{"user": "admin", "password": "{PW}"}}', PW),
    ("json-escaped-in-a-tool-call", f'{{"cmd": "psql \\"password={PW}\\""}}', PW),
    ("ini-spaced", "[db]\npassword = Qw3!er7\n", "Qw3!er7"),
    ("env-file", "DB_PASSWORD=hunter2hunter2\n", "hunter2hunter2"),
    ("pgpassword-env", f"PGPASSWORD={PW} psql -h db -U app", PW),
    ("mysql-p-flag", f"mysql -u root -p{PW} shop", PW),
    ("mysqldump-quoted", f"mysqldump -uroot -p'{PW}' shop > dump.sql", PW),
    ("curl-u", f"curl -u admin:{PW} https://api.example.com/v1", PW),
    ("curl-user-quoted", f'curl --user "deploy:{PW}" https://api.example.com/v1', PW),
    ("sshpass", f"sshpass -p '{PW}' ssh deploy@web1", PW),
    ("redis-cli-a", f"redis-cli -h cache -a {PW} ping", PW),
    ("docker-auths", f'{{"auths": {{"ghcr.io": {{"auth": "{DOCKER_AUTH}"}}}}}}', DOCKER_AUTH),
    ("aws-bare-secret-beside-key-id", f"AWS keys: {AKIA} / {AWS_SECRET}", AWS_SECRET),
    ("aws-credentials-file", f"[default]\naws_access_key_id = {AKIA}\naws_secret_access_key = {AWS_SECRET}\n",
     AWS_SECRET),
    ("fullwidth-token", f"トークン：{fullwidth(GHP)}", fullwidth(GHP)),
    ("zero-width-split-token", f"token {GHP[:10]}\u200b{GHP[10:]}", GHP[10:]),
    ("newline-split-token", f"export GITHUB_TOKEN={GHP[:20]}\n{GHP[20:]}\n", GHP[20:]),
    ("cjk-aws-key-id", f"鍵は{AKIA}です", AKIA),
    ("cjk-github-token", f"トークンは{GHP}です", GHP),
    ("cjk-url-password", f"postgres://admin:{PW}@db.internalです", PW),
    ("cjk-url-password-both-sides", f"接続先はpostgres://admin:{PW}@dbです。", PW),
    ("chinese-openai-key", f"密钥是{OPENAI}。", OPENAI),
    ("japanese-password-label", f"パスワード：{PW}", PW),
    ("japanese-password-label-ascii-colon", f"DBのパスワードは {PW} です", PW),
    ("slack-after-japanese", f"Slackのトークン{SLACK}を使う", SLACK),
    ("git-credentials", f"https://bob:{GHP}@github.com", GHP),
    ("gitlab-oauth-url", f"git clone https://oauth2:{GLPAT}@gitlab.com/team/app.git", GLPAT),
    ("npmrc", f"//registry.npmjs.org/:_authToken={NPM}", NPM),
    ("stripe-in-js", f"const stripe = Stripe('{STRIPE}');", STRIPE),
    ("azure-connection-string",
     f"DefaultEndpointsProtocol=https;AccountName=shop;AccountKey={AZURE_KEY};EndpointSuffix=core.windows.net",
     AZURE_KEY),
    ("mysql-url-in-quotes", f'DATABASE_URL="mysql://app:{PW}@db:3306/app"', PW),
    ("private-key-in-yaml", "tls:\n  key: |\n    -----BEGIN EC PRIVATE KEY-----\n    " + r(64)
     + "\n    -----END EC PRIVATE KEY-----\n", "-----BEGIN EC PRIVATE KEY-----"),
    ("bearer-after-japanese", f"ヘッダーはAuthorization: Bearer {BEARER}です", BEARER),
]


def test_there_are_38_formats() -> None:
    assert len(FORMATS) == 38 and len({name for name, _, _ in FORMATS}) == 38


@pytest.mark.parametrize("name, text, secret", FORMATS, ids=[f[0] for f in FORMATS])
def test_each_format_is_redacted(name: str, text: str, secret: str) -> None:
    clean, count = redact(text)
    assert count >= 1, (name, text)
    assert secret not in clean, (name, clean)
    assert list(find_secrets(clean)) == [], clean  # redaction is a fixed point


@pytest.mark.parametrize("text", [
    "設定は環境変数から読む: password = os.environ['DB_PASSWORD']",
    "パスワードは1Passwordに保存してある",
    "トークンの有効期限は30日です",
    "mysql -u root -p shop  # prompts for the password",
    "curl -u $USER:$TOKEN https://api.example.com",
    "redis-cli -a \"$REDIS_PASSWORD\" ping",
    "machine example.com login bob password <your password>",
    "docker login ghcr.io -u bob --password-stdin",
    "キーは AKIA で始まる20文字",
    "ｐａｓｓｗｏｒｄ は設定ファイルに書かない",
])
def test_ordinary_cjk_and_shell_text_is_not_a_secret(text: str) -> None:
    assert [m.kind for m in find_secrets(text)] == []


def test_a_record_holding_a_secret_beside_japanese_fails_lint(example_ws) -> None:
    path = example_ws / "memory" / "requests" / "japanese-commit-messages.md"
    path.write_text(path.read_text(encoding="utf-8") + f"\n鍵は{AKIA}です。トークンは{GHP}です。\n",
                    encoding="utf-8")
    found = [f for f in lint(Workspace.open(example_ws), ["memory/requests/japanese-commit-messages.md"])
             if f.code == "secret"]
    assert len(found) == 2
