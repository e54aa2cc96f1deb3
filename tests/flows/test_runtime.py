"""flows/runtime.py pieces that need no Prefect server: the collector pause around heavy imports."""

from __future__ import annotations

import gc

from flows.runtime import collector_paused


def test_the_collector_is_off_inside_and_what_was_built_is_frozen_after() -> None:
    assert gc.isenabled()
    frozen_before = gc.get_freeze_count()
    try:
        with collector_paused():
            assert not gc.isenabled()
            built = [[n] for n in range(1000)]  # what an import leaves behind
        assert gc.isenabled()
        assert gc.get_freeze_count() >= frozen_before + len(built)
    finally:
        gc.unfreeze()  # the rest of the test session collects as usual


def test_a_collector_that_was_off_stays_off() -> None:
    gc.disable()
    try:
        with collector_paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()
        gc.unfreeze()


def test_the_collector_comes_back_when_the_import_fails() -> None:
    try:
        with collector_paused():
            raise ImportError("a broken install")
    except ImportError:
        pass
    assert gc.isenabled()
    gc.unfreeze()
