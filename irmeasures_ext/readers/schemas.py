"""The fixed columns every run and qrels input becomes, whatever its form."""
import pyarrow as pa

RUN_SCHEMA = pa.schema([('query_id', pa.string()), ('doc_id', pa.string()), ('score', pa.float64())])
QRELS_SCHEMA = pa.schema([('query_id', pa.string()), ('doc_id', pa.string()), ('relevance', pa.int64())])
#: A run that keeps its rank column (tie policy ``rank``).
RANKED_RUN_SCHEMA = RUN_SCHEMA.append(pa.field('rank', pa.int64()))
#: Qrels with equivalence classes: a class id per judged doc (NTCIREVAL's ``label -ec``/``compute -ec``).
CLASS_COLUMN = 'equivalence_class'
QRELS_EC_SCHEMA = QRELS_SCHEMA.append(pa.field(CLASS_COLUMN, pa.int64()))
