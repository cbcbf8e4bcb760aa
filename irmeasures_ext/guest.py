"""Everything this package changes in ir_measures, ir_datasets and the interpreter (a guest's
manners), each with the user problem it solves and where it is installed. :func:`install` (run by
:func:`register`, public as ``irmeasures_ext.register()``, which importing the package runs) makes all of them but
the first and the last, each at most once.

What a user who imports the package asks for:

1. ``ir_measures.measures.registry``: our measures under their names (``setdefault``: never one of
   ir_measures' names), so that ``ir_measures.parse_measure('Q@10')``, the ``ir_measures`` command and
   PyTerrier know them. Installed by ``irmeasures_ext.measures.base.declare`` as each measure is declared
   (importing ``irmeasures_ext.measures``, which importing the package does first).
2. ``ir_measures.providers.registry['irmeasures_ext']`` and ``ir_measures.irmeasures_ext`` (as
   ``ir_measures.pytrec_eval``): our provider by name (``--provider irmeasures_ext``).
   :func:`irmeasures_ext.plugin.register_provider`.
3. ``ir_measures.DefaultPipeline.providers``: ours appended at the end, so that ``ir_measures.calc_aggregate``
   and the ``ir_measures`` command compute our measures, while ir_measures' own keep their providers.
   :func:`irmeasures_ext.plugin.register_provider`.
4. ir_datasets' registry: our datasets (``ir_datasets.load('quoter/english/test')``), once ir_datasets is
   imported; until then a finder at the front of ``sys.meta_path`` waits for that import (evaluating does not
   import ir_datasets, which is slow to import). :func:`irmeasures_ext.plugin.register_datasets`, through
   :func:`irmeasures_ext.autoload.call_after_import`.

The manners, so that one input gives the same numbers, or the same error, through ir_measures' API as through
our provider (:mod:`irmeasures_ext.interop` has the wrappers, :func:`teach_ir_measures` installs them):

5. ``ir_measures.util.QrelsConverter.predict_type`` and ``RunConverter.predict_type``, through which every
   provider reads its inputs: they read a path (``ir_measures.calc_aggregate([Q @ 10, AP], 'qrels.txt',
   'run.txt')`` gave AP's provider the path's characters), a DataFrame with all of PyTerrier's column names for
   its kind (``qid, docno, label``; ``qid, docno, score``) and not all of ir_measures', an Arrow table or dataset
   and ``irmeasures_ext.intent_qrels(...)`` with our readers and our checks; and they refuse qrels without a
   judgment (an empty list or dict, a generator already read), where ir_measures gives no value and means of NaN
   (for a measure of ``ir_measures.define``: the user's function's values from no judgment, the same for a
   generator read twice). (A DataFrame that mixes the two sets of names, ``query_id, docno, relevance``, is left
   to ir_measures, which refuses it with its own error, as without this package. An empty DataFrame is left to
   ir_measures, as PyTerrier's batched Experiment hands one for a batch of topics without judgments; but gdeval's
   provider refuses it too, as it re-reads the qrels through a converter as a list of records.)
6. ``FallbackProvider._evaluator`` (``ir_measures.DefaultPipeline``): reads such qrels knowing the measures,
   with each line's intent where a diversity measure needs it; where the pipeline would give every measure to
   our provider, it is our provider's evaluator, which reads each input once in its own form (no dict-of-dict)
   and aggregates with our code; where ours computes some of them, each provider's evaluator aggregates its own
   (``calc_aggregate`` and ``calc``: ours with our code, not ir_measures' loop over (measure, query) pairs).
7. ``PyNdEvalProvider._evaluator``: gives pyndeval the intents of qrels our readers read, and refuses
   real-valued labels, which pyndeval binarises at 1 without a word (an LLM judge's 0.35 counts for nothing).
8. ``PytrecEvalProvider._evaluator`` and ``GdevalProvider._evaluator``: their failures on an input ours
   computes (pytrec_eval's "Expected relevance to be integer.", gdeval.pl's exit status) become one line naming
   the measures and how to get them from our provider.
9. ``sys.excepthook`` (chained to the previous hook): the plain ``ir_measures`` command, which has no error
   handling of its own, prints a bad input our provider refuses as one line naming the file and line rather
   than a traceback. :func:`install_command_errors`.

At interpreter start, by the installation rather than by an import:

10. ``irmeasures_ext-autoload.pth`` puts a finder at the front of ``sys.meta_path`` that imports the package
    once ir_measures or ir_datasets is imported: ir_measures has no plugin mechanism, and this is how the
    ``ir_measures`` command and a plain ``import ir_measures`` see our measures (:mod:`irmeasures_ext.autoload`).

The switch: ``IRMEASURES_EXT_NO_AUTOLOAD=1`` (:func:`irmeasures_ext.autoload.disabled`, read when the package is
imported) turns off 10; importing the package explicitly then makes 1-4, which the importer asks for, and none
of 5-9: ir_measures then behaves as without this package, but for our measures and provider. Decision: this
makes no silently wrong number possible. Each of 5-9 only reads an input ir_measures refuses with an error (a
path, a PyTerrier frame, an Arrow table), words an error (pytrec_eval's, gdeval.pl's, a traceback), or refuses
an input on which ir_measures computes its own way (qrels without a judgment; real-valued labels given to
pyndeval): without them, ir_measures gives its own error or its own number, the one it gives without this
package, and our provider still reads and checks every input it is given itself.

What changes for ir_measures' own tests (tests/interop/test_guest.py runs them with and without the plugin): every test
has the same outcome but two, which fail with 5 on purpose and pass with the switch, both for one documented
refusal, of qrels ``[]`` (ir_measures' tests give them a run and expect no error), our "qrels: no records" error:
``test_providers.py::TestPytrecEval::test_empty``, where every provider of ir_measures gives no value per query and
a mean of NaN for every measure (an evaluation that evaluates nothing, silently), and
``test_runtime.py::TestRuntime::test_define``, where ``ir_measures.define``'s measure hands the empty qrels to the
user's function, which gives each query of the run a value (0.0: no doc relevant) computed from no judgment, the
silently wrong number a generator of qrels read twice would give. Decision: refused, as everywhere in this package
("never a silently wrong number; bad input gets a clear error"); the rest of both tests passes with the plugin.
A DataFrame mixing ir_measures' and PyTerrier's column names (``test_util.py``'s ``query_id, docno, relevance``) is
ir_measures' own error, with the plugin as without (item 5).
"""
from __future__ import annotations

import functools
import os
import sys
from collections.abc import Callable
from typing import Any

from irmeasures_ext import autoload
from irmeasures_ext.errors import IrMeasuresExtError, RowError
from irmeasures_ext.plugin import provider, register_datasets, register_provider

#: The attribute marking what this module installed (installed once, however often :func:`install` runs).
MARK = 'IRMEASURES_EXT'


def register() -> None:
    """Makes what this package changes in ir_measures, ir_datasets and the interpreter, all listed in this module's
    docstring: the provider, the datasets, and (unless the autoload is switched off) the converters' reading and
    the ``ir_measures`` command's one-line errors (:func:`install`). Idempotent; importing the package runs it
    (public as ``irmeasures_ext.register``)."""
    install()


def install() -> None:
    """Makes the changes 2-4 of the module docstring, and 5-9 unless the autoload is switched off. Idempotent.
    (Module graph: this module imports :mod:`irmeasures_ext.plugin` and :mod:`irmeasures_ext.interop`, neither of
    which imports it, and hands the wrappers the provider: no import circle.)"""
    register_provider()
    autoload.call_after_import('ir_datasets', register_datasets, 'registering its datasets')
    if not autoload.disabled():
        install_command_errors()
        teach_ir_measures()


def teach_ir_measures() -> None:
    """Wraps ir_measures' converters and providers (changes 5-8 of the module docstring) with
    :mod:`irmeasures_ext.interop`'s wrappers, each that needs it given our provider. Idempotent."""
    import ir_measures
    from ir_measures.providers.fallback_provider import FallbackProvider
    from ir_measures.util import QrelsConverter, RunConverter

    from irmeasures_ext import interop
    wrap(QrelsConverter, 'predict_type', functools.partial(interop.converting, kind='qrels'))
    wrap(RunConverter, 'predict_type', functools.partial(interop.converting, kind='run'))
    wrap(FallbackProvider, '_evaluator', functools.partial(interop.reading_qrels_for_the_measures, provider=provider))
    wrappers = {'pyndeval': interop.giving_intents, 'pytrec_eval': interop.pytrec_eval_refusing,
                'gdeval': interop.gdeval_refusing}
    for name, wrapper in wrappers.items():
        if name in ir_measures.providers.registry:
            owner = type(ir_measures.providers.registry[name])
            wrap(owner, '_evaluator', functools.partial(wrapper, provider=provider))


def wrap(owner: type, name: str, wrapper: Callable[[Callable[..., Any]], Callable[..., Any]]) -> None:
    """Replaces ``owner.name`` with ``wrapper(owner.name)``, marked with :data:`MARK`; once."""
    original = getattr(owner, name)
    if getattr(original, MARK, False):
        return
    wrapped = functools.wraps(original)(wrapper(original))
    setattr(wrapped, MARK, True)
    setattr(owner, name, wrapped)


def install_command_errors() -> None:
    """Makes the plain ``ir_measures`` command print a bad input our provider refuses as one line naming the
    file and line (``ir_measures: error: qrels.txt:3: conflicting labels ...``) rather than a traceback: the
    command reads the files itself and passes records, and has no error handling of its own. Other programs'
    uncaught exceptions keep the previous hook's output."""
    if getattr(sys.excepthook, MARK, False):
        return
    previous = sys.excepthook

    def excepthook(kind: type[BaseException], error: BaseException, trace: Any) -> None:
        if not (isinstance(error, IrMeasuresExtError) and _is_the_ir_measures_command()):
            previous(kind, error, trace)
            return
        print(f'ir_measures: error: {_located(error)}', file=sys.stderr)

    setattr(excepthook, MARK, True)
    sys.excepthook = excepthook


def _is_the_ir_measures_command() -> bool:
    """Whether this process runs ir_measures' command line (``ir_measures ...`` or ``python -m ir_measures``)."""
    main = sys.modules.get('__main__')
    spec = getattr(main, '__spec__', None)
    return (spec is not None and spec.name == 'ir_measures.__main__') or os.path.basename(sys.argv[0]) == 'ir_measures'


def _located(error: IrMeasuresExtError) -> str:
    """The error of a check on the records the ir_measures command read from its QRELS or RUN file, naming the
    file and line; other errors as they are."""
    if not isinstance(error, RowError):
        return str(error)
    files = [arg for arg, before in zip(sys.argv[1:], ['', *sys.argv[1:]], strict=False)
             if not arg.startswith('-') and before not in _VALUED_OPTIONS]
    path = dict(zip(('qrels', 'run'), files, strict=False)).get(error.kind)
    if path is None or not os.path.isfile(path):
        return str(error)
    from irmeasures_ext.readers.trec import TrecSource
    return str(TrecSource(path).locate(error))


#: The ir_measures command's options that take a value.
_VALUED_OPTIONS = frozenset({'--places', '-p', '--output_format', '-o', '--provider'})
