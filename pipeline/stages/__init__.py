"""The stages as library functions: one module per stage, each ``<stage>(options, *, observer=None)``
taking its typed options (``options.py``) and returning its typed result (a
``pipeline.stage_results.StageResult``: the data `surge <stage> --json` prints, nothing for display).
``pipeline.api`` and ``import surge`` re-export them; the CLI (``pipeline/commands/``) parses flags into
the options and renders the results."""
