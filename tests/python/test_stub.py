# SPDX-License-Identifier: Apache-2.0
"""The type stub (chsim/__init__.pyi, chsim/theory.pyi) names exactly what the module has,
with the same parameters, and everything public has a docstring."""
import ast
import inspect
import os
import re

import chsim

PACKAGE = os.path.dirname(chsim.__file__)


def stub(name):
    """{name: node} of a stub's top level, and {class: {member: node}}."""
    tree = ast.parse(open(os.path.join(PACKAGE, name)).read())
    top, classes = {}, {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            top[node.name] = node
        if isinstance(node, ast.ClassDef):
            classes[node.name] = {n.name: n for n in node.body if isinstance(n, ast.FunctionDef)}
    return top, classes


def stub_params(fn):
    a = fn.args
    names = [x.arg for x in a.posonlyargs + a.args if x.arg != "self"]
    names += ["*" + a.vararg.arg] if a.vararg else []
    names += [x.arg for x in a.kwonlyargs]
    names += ["**" + a.kwarg.arg] if a.kwarg else []
    return names


def runtime_params(obj):
    """Parameter names of a Python function, or of a pybind11 one from its docstring's first
    line, "name(self: T, key: object, weight: object = 1) -> int"."""
    try:
        sig = inspect.signature(obj)
        out = []
        for p in sig.parameters.values():
            if p.name == "self":
                continue
            out.append({p.VAR_POSITIONAL: "*", p.VAR_KEYWORD: "**"}.get(p.kind, "") + p.name)
        return out
    except (ValueError, TypeError):
        pass
    first = obj.__doc__.splitlines()[0]
    inner = first[first.index("(") + 1:first.rindex(")")]
    out = []
    for part in re.split(r",\s*(?![^\[]*\])", inner):
        name = part.split(":")[0].strip()
        if name and name != "self":
            out.append(name)
    return out


def test_top_level_names_match():
    top, _ = stub("__init__.pyi")
    public = {n for n in dir(chsim) if not n.startswith("_")} - {"theory"}
    public = {n for n in public if not inspect.ismodule(getattr(chsim, n))}
    assert set(top) == public
    assert set(chsim.__all__) == public | {"theory"}


def test_function_parameters_match():
    top, classes = stub("__init__.pyi")
    for name, node in top.items():
        if isinstance(node, ast.FunctionDef):
            assert stub_params(node) == runtime_params(getattr(chsim, name)), name
    for cls, members in classes.items():
        runtime = getattr(chsim, cls)
        own = {n for n in vars(runtime) if not n.startswith("_") or n in ("__len__",
                                                                         "__contains__")}
        if cls == "NodeIndices":
            continue  # an ndarray: its stub names only the added attribute
        documented = {n for n in members if n != "__init__"}
        assert own == documented, cls
        for name, node in members.items():
            attr = inspect.getattr_static(runtime, name)
            if isinstance(attr, property):
                continue
            if name == "__init__":
                if cls in ("Algorithm", "Ring"):  # pybind11: the docstring of __init__
                    assert stub_params(node) == runtime_params(runtime.__init__), cls
                continue
            assert stub_params(node) == runtime_params(getattr(runtime, name)), (cls, name)


def test_theory_stub_matches():
    top, _ = stub("theory.pyi")
    names = {n for n in dir(chsim.theory) if not n.startswith("_")}
    assert set(top) == names
    for name, node in top.items():
        assert stub_params(node) == runtime_params(getattr(chsim.theory, name)), name
    from chsim.theory import cv  # importable as a module too
    assert cv(100) == 0.1


def test_everything_public_has_a_docstring():
    def doc(obj):
        text = inspect.getdoc(obj) or ""
        if text.startswith(getattr(obj, "__name__", "?") + "("):  # pybind11: signature first
            text = "\n".join(text.splitlines()[1:])
        return text.strip()
    for name in chsim.__all__:
        obj = getattr(chsim, name)
        assert doc(obj), name
        if inspect.isclass(obj):
            for member, attr in vars(obj).items():
                if member.startswith("_") and member not in ("__len__", "__contains__"):
                    continue
                assert (attr.__doc__ or "").strip(), (name, member)
    for name in dir(chsim.theory):
        if not name.startswith("_"):
            assert doc(getattr(chsim.theory, name)), name
