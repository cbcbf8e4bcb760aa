"""Arrow and numpy helpers the readers and the engine share (private): Arrow's compute functions
without ``pyarrow.compute`` (:mod:`.compute`), conversions between Arrow arrays and numpy
(:mod:`.arrays`) and the allocators (:mod:`.memory`). Nothing here imports the rest of the package."""
