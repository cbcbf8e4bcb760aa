"""The computing side (numpy and pyarrow), imported on the first evaluation: the qrels index
(:mod:`.judgments`), the ranking with trec_eval's tie rule (:mod:`.ranking`), the kernels
(:mod:`.kernels`) and the evaluator that ties them together (:mod:`.evaluator`)."""
