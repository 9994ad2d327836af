"""A small English–Japanese glossary of the words coding instructions are made of.

Without a model, "use pnpm instead of npm" and 「npmじゃなくてpnpmを使って」 share only the tool
names. Mapping both sides' words onto one concept (`use` / 使 → USE, instead / じゃなく → INSTEAD,
test / テスト → TEST) lets the lexical matcher see a translated instruction as the repetition it is.

The list is general coding vocabulary (version control, tests, files, code style, languages, the
modal words of a rule), written from what developers tell agents, not from any data set. A concept
is *function* (it shapes an instruction: negation, "always", "use", "instead") or *content* (what
the instruction is about); a statement needs content to count (see directive.py).

English words are matched by their search stem (memcli.analysis.text.word_term), so "tests",
"testing" and "tested" are TEST; Japanese words by substring of a CJK run, longest first.
"""

from __future__ import annotations

from functools import lru_cache

from memcli.analysis.text import stem

# concept: (function word?, English words, Japanese words)
_GLOSSARY: dict[str, tuple[bool, str, str]] = {
    # what makes a sentence a rule
    "NEG": (True, "not never no avoid without stop dont nothing none",
            "ないで ない 禁止 やめ 止め ダメ だめ 駄目 しない せず なし 無し 不要"),
    "ALWAYS": (True, "always every each whenever", "必ず 常に いつも 毎回 絶対に 全て すべて"),
    "INSTEAD": (True, "instead rather replace", "代わり かわり ではなく じゃなく でなく じゃなくて 替え"),
    "USE": (True, "use using", "使 利用"),
    "PREFER": (True, "prefer preferred like favour favor", "好 優先 推奨"),
    "ONLY": (True, "only just", "だけ のみ"),
    # what rules are about
    "TEST": (False, "test tests testing", "テスト 試験"),
    "COMMIT": (False, "commit commits", "コミット"),
    "BRANCH": (False, "branch branches", "ブランチ"),
    "MERGE": (False, "merge", "マージ"),
    "PUSH": (False, "push", "プッシュ"),
    "REBASE": (False, "rebase", "リベース"),
    "SQUASH": (False, "squash", "スカッシュ"),
    "TAG": (False, "tag", "タグ"),
    "FILE": (False, "file files", "ファイル"),
    "FOLDER": (False, "directory folder dir", "ディレクトリ フォルダ"),
    "FUNCTION": (False, "function functions method", "関数 メソッド"),
    "VARIABLE": (False, "variable variables", "変数"),
    "CLASS": (False, "class classes", "クラス"),
    "TYPE": (False, "type types typing", "型"),
    "HINT": (False, "hint hints annotation annotations", "ヒント 注釈 アノテーション"),
    "COMMENT": (False, "comment comments", "コメント"),
    "DOCSTRING": (False, "docstring docstrings", "ドックストリング"),
    "MESSAGE": (False, "message messages", "メッセージ"),
    "LOG": (False, "log logs logging logger", "ログ"),
    "ERROR": (False, "error errors", "エラー"),
    "WARNING": (False, "warning warnings", "警告"),
    "EXCEPTION": (False, "exception exceptions", "例外"),
    "DOCS": (False, "docs documentation document readme", "ドキュメント 文書"),
    "ENGLISH": (False, "english", "英語"),
    "JAPANESE": (False, "japanese", "日本語"),
    "LANGUAGE": (False, "language", "言語"),
    "WRITE": (False, "write written writing", "書"),
    "READ": (False, "read", "読"),
    "RUN": (False, "run running execute", "実行 走らせ 回し"),
    "INSTALL": (False, "install installs installing", "インストール 導入"),
    "PACKAGE": (False, "package packages", "パッケージ"),
    "LIBRARY": (False, "library libraries", "ライブラリ"),
    "DEPENDENCY": (False, "dependency dependencies", "依存"),
    "VERSION": (False, "version versions", "バージョン 版"),
    "UPDATE": (False, "update upgrade", "更新 アップデート アップグレード"),
    "DELETE": (False, "delete remove drop", "削除 消し 消す"),
    "ADD": (False, "add", "追加"),
    "CREATE": (False, "create make", "作成 新規"),
    "CHANGE": (False, "change modify edit", "変更 編集"),
    "FIX": (False, "fix", "修正 直して 直す 直し"),
    "RENAME": (False, "rename", "リネーム 名前を変"),
    "NAME": (False, "name names naming", "名前 命名"),
    "FORMAT": (False, "format formatter formatting", "フォーマット 整形"),
    "LINT": (False, "lint linter", "リント"),
    "BUILD": (False, "build", "ビルド"),
    "DEPLOY": (False, "deploy deployment", "デプロイ"),
    "RELEASE": (False, "release", "リリース"),
    "REVIEW": (False, "review", "レビュー"),
    "CHECK": (False, "check verify confirm", "確認 チェック 検証"),
    "TAB": (False, "tab tabs", "タブ"),
    "SPACE": (False, "space spaces whitespace", "スペース 空白"),
    "INDENT": (False, "indent indentation", "インデント 字下げ"),
    "LINE": (False, "line lines", "行目 行数 改行 一行 各行"),
    "CODE": (False, "code", "コード"),
    "SHORT": (False, "short brief concise", "短 簡潔"),
    "LONG": (False, "long", "長"),
    "CONFIG": (False, "config configuration setting settings", "設定 コンフィグ"),
    "ENVIRONMENT": (False, "environment env", "環境"),
    "DATABASE": (False, "database db", "データベース"),
    "QUERY": (False, "query queries", "クエリ"),
    "TABLE": (False, "table tables", "テーブル 表"),
    "COLUMN": (False, "column columns", "カラム 列"),
    "INDEX": (False, "index", "インデックス 索引"),
    "ARRAY": (False, "array arrays list lists", "配列 リスト"),
    "CACHE": (False, "cache", "キャッシュ"),
    "SERVER": (False, "server", "サーバ"),
    "REQUEST": (False, "request requests", "リクエスト"),
    "RESPONSE": (False, "response", "レスポンス"),
    "DATE": (False, "date dates", "日付"),
    "TIME": (False, "time timestamp timestamps", "時刻 時間 タイムスタンプ"),
    "TIMEZONE": (False, "timezone utc", "タイムゾーン"),
    "STRING": (False, "string strings", "文字列"),
    "NUMBER": (False, "number numbers", "数値"),
    "ASYNC": (False, "async asynchronous", "非同期"),
    "SCRIPT": (False, "script scripts", "スクリプト"),
    "COMMAND": (False, "command commands", "コマンド"),
    "OPTION": (False, "option options flag flags", "オプション フラグ"),
    "ARGUMENT": (False, "argument arguments parameter parameters", "引数 パラメータ"),
    "OUTPUT": (False, "output print", "出力 表示"),
    "INPUT": (False, "input", "入力"),
    "PATH": (False, "path paths", "パス"),
    "RELATIVE": (False, "relative", "相対"),
    "ABSOLUTE": (False, "absolute", "絶対パス"),
    "IMPORT": (False, "import imports", "インポート"),
    "MODULE": (False, "module modules", "モジュール"),
    "COMPONENT": (False, "component components", "コンポーネント"),
    "STYLE": (False, "style", "スタイル"),
    "PR": (False, "pr prs", "プルリク"),
    "ISSUE": (False, "issue issues ticket", "イシュー チケット"),
    "ANSWER": (False, "answer reply respond", "回答 返答 返信 答"),
    "EXPLAIN": (False, "explain explanation", "説明"),
    "ASK": (False, "ask", "聞 質問 尋ね"),
    "SIMPLE": (False, "simple", "シンプル 簡単 単純"),
    "MOCK": (False, "mock mocks", "モック"),
    "FIXTURE": (False, "fixture fixtures", "フィクスチャ"),
    "COVERAGE": (False, "coverage", "カバレッジ"),
    "CONTAINER": (False, "container docker", "コンテナ"),
    "SECRET": (False, "secret secrets password token credentials", "シークレット 秘密 パスワード トークン"),
    "KEY": (False, "key keys", "キー 鍵"),
    "HARDCODE": (False, "hardcode hardcoded", "ハードコード 直書き"),
    "CONSTANT": (False, "constant constants", "定数"),
    "DEFAULT": (False, "default", "デフォルト 既定"),
    "DEBUG": (False, "debug", "デバッグ"),
    "BACKUP": (False, "backup", "バックアップ"),
    "MIGRATION": (False, "migration migrations", "マイグレーション 移行"),
    "SCHEMA": (False, "schema", "スキーマ"),
    "CASE": (False, "case snake camel kebab", "ケース スネーク キャメル"),
    "UPPER": (False, "uppercase upper capital", "大文字"),
    "LOWER": (False, "lowercase lower", "小文字"),
    "DIFF": (False, "diff patch", "差分 パッチ"),
    "STEP": (False, "step steps", "ステップ 手順"),
    "PLAN": (False, "plan", "計画 プラン"),
    "BEFORE": (False, "before first", "前に 先に 事前"),
    "AFTER": (False, "after", "後に あとで"),
    "MAIN": (False, "main master", "メイン"),
    "API": (False, "api endpoint", "エンドポイント"),
    "PERMISSION": (False, "permission permissions sudo", "権限"),
}

# Actions: two statements that share only an action ("delete js", "remove lines 2 and 3") are about
# different things; an instruction is the same when what it is about is the same.
ACTIONS = frozenset({"CREATE", "DELETE", "ADD", "UPDATE", "CHANGE", "FIX", "RENAME", "WRITE", "READ", "RUN",
                     "CHECK"})

# Alternatives: a statement with one and a statement with the other are two instructions, however
# alike the rest ("commit messages in English" / "in Japanese", "indent with tabs" / "with spaces").
CONTRASTS = (("ENGLISH", "JAPANESE"), ("TAB", "SPACE"), ("UPPER", "LOWER"), ("BEFORE", "AFTER"),
             ("SHORT", "LONG"), ("RELATIVE", "ABSOLUTE"))

# Words that carry no instruction of their own: a statement made only of these (and function
# words, stopwords) is an acknowledgement or a nudge ("thanks", "continue", 「続けて」), not a rule.
GENERIC_EN = frozenset("""continue proceed go ahead keep going do doing done try again yes yeah yep ok okay
thanks thank please pls sure fine good great nice cool perfect awesome look looks lgtm next start wait
hi hello hey sorry right correct exactly agree same thing something anything everything stuff way work
works let lets now then also more bit little""".split())
GENERIC_JA = ("続け", "続行", "進め", "進行", "お願い", "ありがと", "了解", "大丈夫", "もう一度", "再開",
              "よろしく", "頼む", "頼みます", "ちょっと", "待って", "やって", "はい", "いいえ", "次")


@lru_cache(maxsize=1)
def english() -> dict[str, str]:
    """English search stem (and the lowercase word) → concept."""

    out: dict[str, str] = {}
    for concept, (_, words, _) in _GLOSSARY.items():
        for word in words.split():
            out.setdefault(word, concept)
            out.setdefault(stem(word), concept)
    return out


@lru_cache(maxsize=1)
def japanese() -> tuple[tuple[str, str], ...]:
    """(Japanese word, concept), longest word first, so 絶対パス wins over a shorter match."""
    pairs = [(word, concept) for concept, (_, _, words) in _GLOSSARY.items() for word in words.split()]
    return tuple(sorted(pairs, key=lambda p: -len(p[0])))


@lru_cache(maxsize=1)
def function_concepts() -> frozenset[str]:
    return frozenset(c for c, (function, _, _) in _GLOSSARY.items() if function)
