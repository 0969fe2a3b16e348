"""Every exception class cassette-provider exports is a CassetteError with a stable code (issue 24).

The one exception is `AbortError`: it is the abort *reason* (the DOM error the reference records
by name, without a code, ERR-1), not a failure of cassette. Normalization and canonical-JSON
refusals stay TypeErrors, as the reference raises them (ERR-2).
"""

from __future__ import annotations

import cassette_provider
import pytest
from cassette_format.problem import FormatProblem
from cassette_provider import (
    CassetteError,
    FunctionProvider,
    ModelReplayError,
    ProviderRegistry,
    ProviderRegistryError,
    SimpleAgent,
    StartRequest,
)
from cassette_provider.contract.errors import RUN_RESULT_SHAPE
from cassette_provider.contract.registry import DUPLICATE_PROVIDER, NO_PROVIDER
from cassette_topology.sessions import SESSION_EXTRA

_NOT_FAILURES = {"AbortError"}


def _exported_exceptions() -> dict[str, type[BaseException]]:
    found = {}
    for name in dir(cassette_provider):
        value = getattr(cassette_provider, name)
        if isinstance(value, type) and issubclass(value, BaseException):
            found[name] = value
    return found


def test_every_exported_exception_is_a_cassette_error() -> None:
    exported = _exported_exceptions()
    assert {"ProviderRegistryError", "ModelReplayError"} <= exported.keys()
    assert {
        name
        for name, kind in exported.items()
        if not issubclass(kind, CassetteError) and name not in _NOT_FAILURES
    } == set()


async def test_registry_refusals_carry_their_codes() -> None:
    registry = ProviderRegistry()
    provider = FunctionProvider("spawn", lambda _request, _child: {"output": []})
    registry.register(provider)
    with pytest.raises(ProviderRegistryError) as duplicate:
        registry.register(provider)
    assert isinstance(duplicate.value, CassetteError)
    assert duplicate.value.code == DUPLICATE_PROVIDER
    with pytest.raises(CassetteError) as missing:
        await registry.start("nobody", StartRequest(prompt=[], parent=SimpleAgent()))
    assert missing.value.code == NO_PROVIDER
    assert str(missing.value) == 'no subagent provider registered for "nobody"'


@pytest.mark.parametrize(
    ("returned", "named"),
    [
        ("plain text", "a str"),
        ({"text": "x"}, "a dict without output and stopReason"),
        (None, "a NoneType"),
    ],
)
async def test_a_run_function_returning_no_result_mapping_is_a_coded_error_showing_the_shape(
    returned: object, named: str
) -> None:
    """A string is plain JSON, so the refusal says the result shape, with a code (issue 27)."""
    provider = FunctionProvider("spawn", lambda _request, _child: returned)
    run = await provider.start(StartRequest(prompt=[], parent=SimpleAgent()))
    with pytest.raises(CassetteError) as refused:
        await run.result
    assert not isinstance(refused.value, TypeError)
    assert refused.value.code == RUN_RESULT_SHAPE
    assert str(refused.value) == (
        f'FunctionProvider "spawn": the run function returned {named}; return a result such as '
        '{"output": [{"type": "text", "text": "..."}], "stopReason": "completed"}'
    )


def test_a_model_replay_error_is_a_cassette_error_with_the_session_code() -> None:
    error = ModelReplayError(FormatProblem("one call too many", code=SESSION_EXTRA))
    assert isinstance(error, CassetteError)
    assert (error.code, str(error)) == (SESSION_EXTRA, "one call too many")
