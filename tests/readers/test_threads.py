"""Evaluations on several threads at once (issue 39 §2): a module being imported by one thread is in
``sys.modules`` before its classes exist, which other threads must not trip on."""
import subprocess
import sys
import textwrap
import types

import ir_measures

import irmeasures_ext
from irmeasures_ext.readers.inputs import is_dataset


def test_a_dataset_module_being_imported_is_no_dataset(monkeypatch):
    """pyarrow.dataset as another thread sees it while importing it: in sys.modules, without Dataset yet."""
    monkeypatch.setitem(sys.modules, 'pyarrow.dataset', types.ModuleType('pyarrow.dataset'))
    assert not is_dataset({'q': {'a': 1.0}})
    values = irmeasures_ext.provider.calc_aggregate([ir_measures.AP], {'q': {'a': 1}}, {'q': {'a': 1.0}})
    assert values == {ir_measures.AP: 1.0}


RACE = textwrap.dedent('''
    import sys, tempfile, threading
    import pyarrow as pa, pyarrow.parquet as pq
    import ir_measures, irmeasures_ext
    folder = tempfile.mkdtemp()
    pq.write_table(pa.table({'query_id': ['q'], 'doc_id': ['a'], 'score': [1.0]}), folder + '/run.parquet')
    errors = []
    start = threading.Barrier(9)

    def evaluate(run):
        start.wait()
        try:
            for _ in range(40):
                values = irmeasures_ext.provider.calc_aggregate([ir_measures.AP], {'q': {'a': 1}}, run)
                assert values[ir_measures.AP] == 1
        except Exception as error:
            errors.append(repr(error))
    threads = [threading.Thread(target=evaluate, args=(folder + '/run.parquet' if i == 0 else {'q': {'a': 1.0}},))
               for i in range(9)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert 'pyarrow.dataset' in sys.modules
    print(errors or 'ok')
''')


def test_threads_evaluate_dicts_while_one_imports_pyarrow_dataset():
    """In fresh processes (the module imported for the first time): a Parquet read on one thread, plain dicts on
    eight others, 40 evaluations each; before the fix 5 of 5 processes failed."""
    for _ in range(3):
        result = subprocess.run([sys.executable, '-c', RACE], capture_output=True, text=True, timeout=120)
        assert (result.returncode, result.stdout.strip()) == (0, 'ok'), result.stderr[-2000:]
