"""Attributes of a memory access in ``explore`` threads: proxy, type, semantics and scope, and
the location a litmus name resolves to (PTX ISA §8.4, §8.6)."""

from __future__ import annotations

from ptxkit.consistency.events import resolve_location
from ptxkit.consistency.vocab import SCOPES, SEMS
from ptxkit.explore.program import Location

PROXY_OF = {"ld": "GEN", "st": "GEN", "atom": "GEN", "red": "GEN", "tld": "TEX", "suld": "SUR",
            "sust": "SUR", "suatom": "SUR", "sured": "SUR"}


def is_ptr(v: object) -> bool:
    """A symbolic address: a litmus location name or ``('ptr', buffer, byte offset)``."""
    return isinstance(v, (str, tuple))


def resolve(locations: dict[str, Location], name: str) -> tuple[str, str]:
    """(physical location, virtual address) of a litmus location name (ISA §8.6). A generic alias
    ``y @ generic aliases x`` is another virtual address of x; a surface/texture/constant alias
    ``s @ surface aliases y`` reaches y's virtual address through that proxy."""
    phys, vaddr, _ = resolve_location(locations, name)
    return phys, vaddr


_TYPES = {f"{k}{b}" for k in "usbf" for b in (8, 16, 32, 64)} | {"pred"}


def type_of(mods: tuple[str, ...]) -> str | None:
    return next((m for m in reversed(mods) if m in _TYPES), None)


def access_bytes(mods: tuple[str, ...]) -> int | None:
    """Bytes of one element of an access (a vector access is split into its elements)."""
    ty = type_of(mods)
    if ty is None or ty == "pred":
        return None
    return int(ty[1:]) // 8


def sem_scope(mods: tuple[str, ...], rmw: bool = False) -> tuple[str, str | None]:
    if "volatile" in mods:  # ISA §8.4: ld/st.volatile behave as .relaxed.sys
        return "relaxed", "sys"
    sem = next((m for m in mods if m in SEMS), "relaxed" if rmw else "weak")
    scope = next((m for m in mods if m in SCOPES), "gpu" if rmw else None)
    if sem == "weak":
        scope = None
    elif scope is None:
        scope = "sys"
    return sem, scope
