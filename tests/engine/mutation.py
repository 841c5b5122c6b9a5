"""Hypothesis helpers for hostile-input tests: random JSON values and paths into documents."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats(allow_nan=False)
    | st.sampled_from(["red", "blue", "N", "d4", "place", "standard", "c", "x", ""]),
    lambda inner: st.lists(inner, max_size=8) | st.dictionaries(st.text(max_size=6), inner),
    max_leaves=8,
)
"""Any JSON value (numbers up to 10**30, strings the formats use, nested lists and objects)."""


def paths_of(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every path (keys and indexes) into a JSON document, the document itself first."""
    found = [prefix]
    if isinstance(value, dict):
        for key, item in value.items():
            found += paths_of(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += paths_of(item, (*prefix, index))
    return found


def set_path(body: Any, path: tuple[Any, ...], value: Any) -> None:
    """Replace the value at `path` (not the empty path) in `body`."""
    target = body
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value


def mutate(body: Any, data: st.DataObject, times: int = 3) -> None:
    """Replace 1 to `times` values of `body`, in place, with random JSON."""
    for _ in range(data.draw(st.integers(1, times))):
        paths = paths_of(body)[1:]
        if not paths:
            return
        set_path(body, data.draw(st.sampled_from(paths)), data.draw(JSON))
