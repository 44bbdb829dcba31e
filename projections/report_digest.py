"""Digests of what a report says, derived from the code that says it (issue 33 item 4).

A saved scorecard is only worth comparing with a fresh fold when both were folded by the same code:
otherwise a reworded condition reads as tampering. A version bumped by hand is forgotten, so the
version is a digest of the declarations themselves:

- a benchmark's (`benchmark_digest`): its kind, and for each publishable condition its name and its
  code, for each report section (its official statistics, its headline) its code;
- the core report's (`core_digest`): the report's shape (`Report`'s JSON schema, every nested model
  in it) and the code of `build_report`, `scorecard_value` and the conditions every run must meet.

The digest of a piece of code is its function's source, normalised (`ast.unparse` of it without
docstrings, so a comment, a docstring or a line break changes nothing, a reworded reason or a changed
rule does), then, recursively, what it reaches: the values in its closure and defaults (the arguments
a builder such as `complete_corpus("messages")` was given), and the module globals its code names:
data (released pins, model names, domain lists, a benchledger object's attributes) by value, and every
function of benchledger by its own digest. An object that holds more than its attributes show says
what with a `__report_digest__()` method (a pin table read from a packaged file: that file's
SHA-256). Anything else (a class, a module, a library function) counts by its name only. Paths
count by their last part, so a checkout's location changes no digest.

What it misses, by design: a change inside a class's method that a report reaches through an
instance (a RunState property) and the Python version's own libraries. A false "stale" costs one
re-fold; a missed change costs a false "tampering", so the core digest also covers the report models'
schema, and anyone changing such a method changes the golden digests' test with it.

The views table keeps an integer version, so a saved scorecard's version is the first 31 bits of the
digest of the two (`views.scorecard_version`): it fits PostgreSQL's `integer`, and two codes that
happen to share one are a 1 in 2 ** 31 chance.
"""

from __future__ import annotations

import ast
import dataclasses
import enum
import functools
import hashlib
import inspect
import json
import re
import textwrap
import types
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import PurePath
from typing import Any

from pydantic import BaseModel

from benchledger.projections import publishable
from benchledger.projections.publishable import condition_name

__all__ = ["code_digest", "benchmark_digest", "core_digest", "declarations"]

_PACKAGE = "benchledger"


def _strip_docstrings(tree: ast.AST) -> ast.AST:
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                    and isinstance(body[0].value.value, str):
                node.body = body[1:] or [ast.Pass()]
    return tree


@functools.lru_cache(maxsize=None)
def _source(code: types.CodeType) -> str:
    """The code's source without comments, docstrings or layout; its constants when no source is found.
    Cached by code object: reading and parsing a source is the slow part, and code does not change."""
    try:
        text = textwrap.dedent(inspect.getsource(code))
    except (OSError, TypeError):
        return repr(tuple(c for c in code.co_consts if isinstance(c, (str, int, float))))
    try:
        return ast.unparse(_strip_docstrings(ast.parse(text)))
    except SyntaxError:  # a lambda in the middle of an expression: its lines as written, comments and all
        return " ".join(line.strip() for line in text.splitlines() if line.strip())


def _names(code: types.CodeType) -> set[str]:
    """Every name the code (and code nested in it: comprehensions, lambdas, inner functions) looks up."""
    found = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            found |= _names(const)
    return found


def _qualified(obj: Any) -> str:
    return f"{getattr(obj, '__module__', '?')}.{getattr(obj, '__qualname__', type(obj).__qualname__)}"


def _sort_key(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=str)


class _Walk:
    """One digest's walk: every function is spelled out once, later mentions name it (cycles end)."""

    def __init__(self) -> None:
        self.seen: set[int] = set()

    def value(self, obj: Any) -> Any:
        if obj is None or isinstance(obj, (bool, int, float, str)):
            return obj
        if isinstance(obj, bytes):
            return {"bytes": hashlib.sha256(obj).hexdigest()}
        if isinstance(obj, enum.Enum):
            return {"enum": f"{_qualified(type(obj))}.{obj.name}"}
        if isinstance(obj, PurePath):
            return {"path": obj.name}
        if isinstance(obj, (list, tuple)):
            return [self.value(item) for item in obj]
        if isinstance(obj, (set, frozenset)):
            return sorted((self.value(item) for item in obj), key=_sort_key)
        if isinstance(obj, Mapping):
            return sorted(([self.value(k), self.value(v)] for k, v in obj.items()), key=lambda kv: _sort_key(kv[0]))
        if isinstance(obj, (type, types.ModuleType)):
            return {"name": getattr(obj, "__name__", "?") if isinstance(obj, types.ModuleType) else _qualified(obj)}
        if isinstance(obj, types.FunctionType):
            return self.function(obj)
        if isinstance(obj, types.MethodType):
            return {"method": self.function(obj.__func__) if isinstance(obj.__func__, types.FunctionType)
                    else _qualified(obj.__func__), "of": self.value(obj.__self__)}
        if isinstance(obj, functools.partial):
            return {"partial": self.value(obj.func), "args": self.value(obj.args), "keywords": self.value(obj.keywords)}
        return self.instance(obj)

    def instance(self, obj: Any) -> Any:
        if id(obj) in self.seen:
            return {"object": _qualified(type(obj))}
        self.seen.add(id(obj))
        hook = getattr(type(obj), "__report_digest__", None)
        if hook is not None:  # an object that says what it holds (a pin table read from a packaged file)
            return {"object": _qualified(type(obj)), "holds": self.value(hook(obj))}
        if isinstance(obj, BaseModel):
            try:
                return {"model": _qualified(type(obj)), "value": self.value(obj.model_dump(mode="json"))}
            except Exception:  # a model holding what JSON cannot say: its fields one by one
                return {"model": _qualified(type(obj)), "fields": self.value(dict(obj))}
        if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
            return {"dataclass": _qualified(type(obj)),
                    "fields": [[f.name, self.value(getattr(obj, f.name))] for f in dataclasses.fields(obj)]}
        if isinstance(obj, re.Pattern):
            return {"pattern": obj.pattern, "flags": obj.flags}
        if callable(obj) and isinstance(getattr(obj, "__wrapped__", None), types.FunctionType):
            return {"wraps": self.function(obj.__wrapped__)}  # functools.lru_cache, functools.wraps
        out: dict[str, Any] = {"object": _qualified(type(obj))}
        call = getattr(type(obj), "__call__", None)
        if callable(obj) and isinstance(call, types.FunctionType):
            out["call"] = self.function(call)
        if str(type(obj).__module__).startswith(_PACKAGE) and hasattr(obj, "__dict__"):
            cached = {n for n, v in inspect.getmembers(type(obj)) if isinstance(v, functools.cached_property)}
            out["state"] = self.value({k: v for k, v in vars(obj).items() if k not in cached})
        return out

    def function(self, fn: types.FunctionType) -> Any:
        if not str(fn.__module__).startswith(_PACKAGE):
            return {"fn": _qualified(fn)}
        name = fn.__qualname__  # its code, not where it lives: a function moved to another module is the same
        if id(fn) in self.seen:
            return {"fn": name}
        self.seen.add(id(fn))
        closure = []
        for cell in fn.__closure__ or ():
            try:
                closure.append(self.value(cell.cell_contents))
            except ValueError:  # a cell not yet filled
                closure.append(None)
        names = sorted(n for n in _names(fn.__code__) if n in fn.__globals__)
        return {"fn": name, "code": _source(fn.__code__), "defaults": self.value(fn.__defaults__),
                "kwdefaults": self.value(fn.__kwdefaults__), "closure": closure,
                "globals": [[n, self.value(fn.__globals__[n])] for n in names]}


def _digest(value: Any) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True, default=str).encode()).hexdigest()


def code_digest(*objects: object) -> str:
    """SHA-256 of the normalised code and data of `objects` and of everything of benchledger they reach."""
    walk = _Walk()
    return _digest([walk.value(obj) for obj in objects])


def declarations(conditions: Sequence[Callable[..., Any]], sections: Sequence[Callable[..., Any]] = (),
                 kind: str | None = None) -> dict[str, Any]:
    """What a benchmark's report digest is made of, by part: each condition by name, each section, its kind
    (a test shows which part of a benchmark's wording changed)."""
    return {"kind": kind,
            "conditions": {f"{i}:{condition_name(check)}": code_digest(check) for i, check in enumerate(conditions)},
            "sections": {f"{i}:{getattr(fold, '__name__', type(fold).__name__)}": code_digest(fold)
                         for i, fold in enumerate(sections)}}


def _benchmark_digest(conditions: tuple[Any, ...], sections: tuple[Any, ...], kind: str | None) -> str:
    return _digest(declarations(conditions, sections, kind))


_cached_benchmark_digest = functools.lru_cache(maxsize=256)(_benchmark_digest)


def benchmark_digest(conditions: Iterable[Callable[..., Any]], sections: Iterable[Callable[..., Any]] = (),
                     kind: str | None = None) -> str:
    """The digest of a benchmark's report declarations (its conditions, its sections, its kind), as the
    benchmark hands them to the report. Cached by the declared objects (every run of a benchmark hands
    the same ones); an unhashable declaration is digested afresh."""
    conditions, sections = tuple(conditions), tuple(sections)
    try:
        return _cached_benchmark_digest(conditions, sections, kind)
    except TypeError:
        return _benchmark_digest(conditions, sections, kind)


def _without_descriptions(schema: Any) -> Any:
    """A JSON schema without its descriptions and titles (a field's docstring changes no saved view)."""
    if isinstance(schema, dict):
        return {k: _without_descriptions(v) for k, v in schema.items() 
                if not (k in ("description", "title") and isinstance(v, str))}
    if isinstance(schema, list):
        return [_without_descriptions(item) for item in schema]
    return schema


@functools.lru_cache(maxsize=1)
def core_digest() -> str:
    """The digest of the core report: its models' schema and the code that folds it and its own conditions."""
    from benchledger.projections import report, views

    return _digest({
        "schema": _without_descriptions(report.Report.model_json_schema()),
        "code": code_digest(report.build_report, report.report_from_state, views.scorecard_value,
                            publishable.evaluate_conditions),
    })
