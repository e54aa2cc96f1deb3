"""Our flows' parameters are stored as Prefect would store them, without importing FastAPI to do it."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

from pydantic import SecretStr

from flows.naming import JobLabel
from flows.surge_flow import SurgeFlow, surge_flow
from pipeline.build.records import BuildConfig
from pipeline.llm.settings import LLMSettings


def a_flow(store_root: str, label: JobLabel, config: BuildConfig, settings: LLMSettings, n: int) -> int:
    return n


PARAMETERS: dict[str, Any] = {
    "store_root": "/tmp/store",
    "label": JobLabel(command="audit", subsets=("cx",), programs=3),
    "config": BuildConfig(subset="ml", languages=("python",), auto_approve=True, batch_size=2),
    "settings": LLMSettings(base_url="http://127.0.0.1:1/v1", model="m", api_key=SecretStr("sk-hidden")),
    "n": 5,
}


def test_parameters_serialize_as_prefects_own_encoder_would() -> None:
    from fastapi.encoders import jsonable_encoder

    ours = surge_flow("surge-test")(a_flow).serialize_parameters(PARAMETERS)
    assert ours == {name: jsonable_encoder(value) for name, value in PARAMETERS.items()}
    assert "sk-hidden" not in str(ours)  # the key never reaches Prefect's database


def test_a_value_it_cannot_encode_is_named_by_its_type() -> None:
    class Opaque:
        pass

    assert surge_flow("surge-test")(a_flow).serialize_parameters({"x": Opaque()}) == {"x": "<Opaque>"}


def test_a_copy_with_other_options_is_still_ours() -> None:
    copy = surge_flow("surge-test")(a_flow).with_options(name="surge-other", flow_run_name="x")
    assert isinstance(copy, SurgeFlow) and copy.name == "surge-other"
    assert copy.serialize_parameters({"label": PARAMETERS["label"]})["label"]["programs"] == 3


def test_fastapi_is_not_imported_to_serialize() -> None:
    probe = (
        "import sys\n"
        "from flows.run_programs import run_plan\n"
        "from flows.naming import JobLabel\n"
        "run_plan.serialize_parameters({'store_root': 's', 'job': JobLabel(command='run')})\n"
        "print('fastapi' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"
