"""irmeasures_ext: Q-measure, nDCG_Z1 and rank statistics inside ir_measures, plus datasets.

Importing the package registers the measures in ``ir_measures.measures.registry`` and the
``irmeasures_ext`` provider in ``ir_measures.providers.registry``, appended to the end of
``ir_measures.DefaultPipeline`` (built-in measures keep their usual providers), and the
QuoteR and citation-recommendation datasets with ir_datasets: at once if ir_datasets is
imported, else as soon as it is (evaluating alone does not import it).
"""
from irmeasures_ext import suites
from irmeasures_ext.errors import InputError, IrMeasuresExtError, MeasureParamError
from irmeasures_ext.measures import MeanRank, MedianRank, MSnDCG, Q, nDCG_JK, nDCG_Z1, nERR
from irmeasures_ext.registration import register

__version__ = '0.1.0'

register()

__all__ = ['Q', 'nDCG_Z1', 'MeanRank', 'MedianRank', 'nERR', 'MSnDCG', 'nDCG_JK', 'IrMeasuresExtError', 'InputError',
           'MeasureParamError', 'register', 'suites', '__version__']
