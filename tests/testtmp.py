"""Temporary folders for the Python tests: made with tmpdir(prefix) and
removed when the test's process ends, passed or failed (atexit, so also
after an exception or sys.exit), unless AIWOLF_KEEP_TMP is set in the
environment: then each is kept and its path printed on stderr.

A test outside tests/ itself imports it with
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    import testtmp"""
import atexit
import os
import shutil
import sys
import tempfile

_DIRS = []


def tmpdir(prefix="aiwolf-test-"):
    d = tempfile.mkdtemp(prefix=prefix)
    _DIRS.append(d)
    return d


def keep():
    return bool(os.environ.get("AIWOLF_KEEP_TMP"))


def _cleanup():
    for d in _DIRS:
        if keep():
            print("files kept in %s (AIWOLF_KEEP_TMP)" % d, file=sys.stderr)
        else:
            shutil.rmtree(d, ignore_errors=True)


atexit.register(_cleanup)
