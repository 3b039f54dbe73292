"""The run view: live (:mod:`.run_view`) and as a static snapshot (:mod:`.snapshot`), with the
sections both draw."""
