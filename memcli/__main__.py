from __future__ import annotations

from memcli.entry import main

if __name__ == "__main__":
    main()
