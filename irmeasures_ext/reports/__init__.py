"""Reports beside the evaluation, each serving one subcommand: the papers' own evaluation scripts
(:mod:`.protocols`, ``--protocol``) and how far ties move each measure (:mod:`.tie_report`,
``irmeasures-ext ties``). They use the engine; the engine does not know them."""
