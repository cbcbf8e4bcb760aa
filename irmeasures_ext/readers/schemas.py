"""The fixed columns every run and qrels input becomes, whatever its form."""
import pyarrow as pa

RUN_SCHEMA = pa.schema([('query_id', pa.string()), ('doc_id', pa.string()), ('score', pa.float64())])
QRELS_SCHEMA = pa.schema([('query_id', pa.string()), ('doc_id', pa.string()), ('relevance', pa.int64())])
