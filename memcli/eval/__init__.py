"""`memcli eval`: is the memory helping? Measured on the user's own history (user docs: docs/eval.md).

Library API:

    from memcli.eval import evaluate, read_sessions

    sessions = read_sessions(workspace, since=None, paths=None)   # the user's prompts, oldest first
    report = evaluate(workspace, sessions)                         # Report: repetitions and what the
    for rep in report.repetitions:                                 #   memory did about each
        rep.text, rep.kind, rep.occurrences, rep.covered_now
        for r in rep.repeats:                                      # each later session it was said in
            r.held_before, r.held_by, r.reached                    # True/False/None, paths, how

    from memcli.eval.stage import stage
    stage(workspace, report.repetitions)                           # uncovered ones → memory/_staging/

Modules: statements (the user's sentences), directive (which are instructions), features and
lexicon (what they are made of), detect (which say the same thing), past (records at a past
commit), coverage (does a memory hold it), reach (context and search of a past moment), evaluate
(all of it per repetition), report (text and JSON), stage (staging items), run (the command).
"""

from __future__ import annotations

from memcli.eval.evaluate import Occurrence, Repeat, Repetition, Report, evaluate
from memcli.eval.statements import read_sessions

__all__ = ["Occurrence", "Repeat", "Repetition", "Report", "evaluate", "read_sessions"]
