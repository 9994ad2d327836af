from __future__ import annotations

from memcli.cli import main

if __name__ == "__main__":
    main()
