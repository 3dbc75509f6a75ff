"""The row shapes of the generated schema tables (``schema_data``, ``rl_schema_data``)."""

from typing import TypedDict


class FieldRow(TypedDict):
    """One field of a mirrored config class, as prime-rl declares it (all text)."""

    type: str
    default: str
    constraints: str
    description: str


class ClassRow(TypedDict):
    """One mirrored config class: its source file, its ``extra`` policy and its fields by name."""

    source: str
    extra: str
    fields: dict[str, FieldRow]
