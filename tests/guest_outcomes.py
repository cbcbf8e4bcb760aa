"""A pytest plugin for tests/interop/test_guest.py's runs of ir_measures' own tests (``-p guest_outcomes``).

With ``IRMEASURES_EXT_GUEST_IMPORT=1`` it imports irmeasures_ext when pytest loads it, before any test is
collected (a user's ``import irmeasures_ext``). At the end of the run it writes to the file named by
``IRMEASURES_EXT_GUEST_OUTCOMES`` the outcomes of each test, each subtest and each module that failed to
collect (a failure with its error), and what of irmeasures_ext the process had loaded, as JSON.
"""
import json
import os
import re
import sys
import tempfile

if os.environ.get('IRMEASURES_EXT_GUEST_IMPORT') == '1':
    import irmeasures_ext  # noqa: F401

#: The attribute marking what irmeasures_ext installed on ir_measures and the interpreter (irmeasures_ext.guest.MARK).
MARK = 'IRMEASURES_EXT'

#: Each test's (and subtest's) phases that did not simply pass, and its call's outcome, in order; a failure with the
#: first line of its error.
OUTCOMES: dict[str, list[str]] = {}


def pytest_collectreport(report):
    if report.failed:
        OUTCOMES.setdefault(report.nodeid, []).append('collect:failed')


def pytest_runtest_logreport(report):
    key = report.nodeid
    context = getattr(report, 'context', None)
    if context is not None:  # (a unittest subTest: its message and parameters)
        key += f' [{context.msg}] {sorted(context.kwargs.items())}'
    if report.when == 'call' or report.outcome != 'passed':
        crash = getattr(report.longrepr, 'reprcrash', None) if report.failed else None
        why = '' if crash is None else ': ' + _stable(crash.message.splitlines()[0])
        OUTCOMES.setdefault(key, []).append(f'{report.when}:{report.outcome}{why}')


def _stable(message: str) -> str:
    """``message`` without what differs from one run to another (temporary files' names, addresses)."""
    message = re.sub(re.escape(tempfile.gettempdir()) + r'/tmp\w+', '<tmp>', message)
    return re.sub(r' at 0x[0-9a-fA-F]+', '', message)


def pytest_sessionfinish(session):
    from ir_measures.util import QrelsConverter
    state = {'loaded': 'irmeasures_ext' in sys.modules,
             'converters wrapped': getattr(QrelsConverter.predict_type, MARK, False),
             'excepthook installed': getattr(sys.excepthook, MARK, False)}
    with open(os.environ['IRMEASURES_EXT_GUEST_OUTCOMES'], 'w', encoding='utf-8') as out:
        json.dump({'outcomes': OUTCOMES, 'state': state}, out)
