"""The fixed columns every run and qrels input becomes, whatever its form."""
import pyarrow as pa

RUN_SCHEMA = pa.schema([('query_id', pa.string()), ('doc_id', pa.string()), ('score', pa.float64())])
QRELS_SCHEMA = pa.schema([('query_id', pa.string()), ('doc_id', pa.string()), ('relevance', pa.int64())])
#: A run that keeps its rank column (tie policy ``rank``).
RANKED_RUN_SCHEMA = RUN_SCHEMA.append(pa.field('rank', pa.int64()))
