"""The bundle contract (operand roles, shape symbols, ops) is defined once,
in the bundle schema's x-fa-contract: fa_mlir reads it (contract.py) and the
runtime's tables are generated from it, so both readers name the same roles
and symbols in the same order."""
import json
import os
import re

import pytest

from fa_mlir import KernelConfig, contract, gpu_runtime, signature
from fa_mlir.errors import RuntimeLibraryError

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
INPUTS = os.path.join(REPO, "test", "Runtime", "Inputs")


def runtime_error(doc, tmp_path):
    """libfa_runtime's message for the bundle `doc` (over the stub cubin)."""
    path = tmp_path / "bundle.json"
    path.write_text(json.dumps(doc))
    os.symlink(os.path.join(INPUTS, "stub_kernels.cubin"),
               tmp_path / "stub_kernels.cubin")
    try:
        gpu_runtime.RuntimeBundle(str(path))
    except RuntimeLibraryError as e:
        return str(e)
    pytest.fail("the runtime loaded a bad bundle")


@pytest.fixture
def example():
    try:
        gpu_runtime.library()
    except Exception as e:  # no libfa_runtime built
        pytest.skip(str(e))
    with open(os.path.join(INPUTS, "attention_fwd.json")) as f:
        return json.load(f)


def test_runtime_roles_are_the_contracts(example, tmp_path):
    """An unknown operand's message lists the runtime's standard roles:
    those of the schema, in its order."""
    example["params"][2]["operand"] = "no_such_role"
    message = runtime_error(example, tmp_path)
    known = re.search(r"\(known: ([^)]*)\)", message).group(1).split(", ")
    assert known == list(contract.operands())


def test_runtime_symbols_are_the_contracts(example, tmp_path):
    example["grid"][0] = "no_such_symbol"
    message = runtime_error(example, tmp_path)
    known = re.search(r"known: ([a-z_, ]*)", message).group(1).split(", ")
    assert known == list(contract.symbol_names())


def test_runtime_dims_are_the_contracts(example, tmp_path):
    """A tensor map over a dim the role lacks: the runtime lists the role's
    dims, as the contract gives them (bshd here)."""
    example["params"][1]["dims"] = ["dim", "seq", "head", "page"]
    message = runtime_error(example, tmp_path)
    assert "(its dims: batch, seq, head, dim)" in message
    assert [d for d, _ in contract.operands()["key"]["dims"]] == \
        ["batch", "seq", "head", "dim"]


def test_python_tables_come_from_the_contract():
    for layout in ("bhsd", "bshd"):
        kcfg = KernelConfig(layout=layout)
        for role in ("query", "key", "value", "output", "lse", "key_cache"):
            assert signature.role_dims(kcfg, role) == \
                contract.dim_symbols(role, layout)
    assert signature.role_dims(KernelConfig(layout="bshd"), "key") == \
        ("batch", "seq_k", "heads_kv", "head_dim")
    assert signature.INT32_ROLES == tuple(
        r for r, o in contract.operands().items() if o["dtype"] == "i32")
    assert set(signature.ROLES) <= set(contract.operands())


def test_the_generated_cpp_tables_list_every_role_and_symbol():
    tables = contract.cpp_tables(contract.contract())
    for role in contract.operands():
        assert f'{{"{role}", OperandShape::' in tables["Operands.inc"]
    for name in contract.symbol_names():
        assert f'"{name}")' in tables["Symbols.inc"]


def test_a_contract_with_an_unknown_symbol_is_refused(tmp_path):
    with open(contract.SCHEMA) as f:
        schema = json.load(f)
    schema["x-fa-contract"]["operands"]["lse"]["dims"][0][1] = "batches"
    path = tmp_path / "schema.json"
    path.write_text(json.dumps(schema))
    with pytest.raises(ValueError, match=r"operands\.lse\.dims: unknown "
                                         r"symbol 'batches'"):
        contract.contract(str(path))


def test_a_contract_op_with_an_unknown_operand_is_refused(tmp_path):
    with open(contract.SCHEMA) as f:
        schema = json.load(f)
    schema["x-fa-contract"]["ops"]["combine"]["operands"].append("partials")
    path = tmp_path / "schema.json"
    path.write_text(json.dumps(schema))
    with pytest.raises(ValueError, match=r"ops\.combine\.operands: unknown "
                                         r"operand 'partials'"):
        contract.contract(str(path))


@pytest.mark.parametrize("field, bad, values", [
    ("swizzle", "16B", "kSwizzles"),
    ("l2_promotion", "512B", "kL2Promotions"),
    ("kind", "tensor", "kParamKinds"),
])
def test_runtime_enums_are_the_schemas(example, tmp_path, field, bad, values):
    """The runtime's enums (and their messages) are the schema's lists."""
    example["params"][0][field] = bad
    message = runtime_error(example, tmp_path)
    known = re.search(r"\(known: ([^)]*)\)", message).group(1).split(", ")
    assert known == contract.schema_values()[values]


def test_runtime_ranges_are_the_schemas(example, tmp_path):
    limit = contract.schema_values()["kBoxMax"]
    example["params"][0]["box"] = [64, limit + 1]
    assert f"box sizes must be integers in [1, {limit}]" in \
        runtime_error(example, tmp_path)


def test_runtime_allowed_keys_are_the_schemas(example, tmp_path):
    example["params"][2]["alignment"] = 16
    message = runtime_error(example, tmp_path)
    allowed = re.search(r"\(allowed here: ([^)]*)\)", message).group(1)
    assert allowed.split(", ") == contract.schema_values()["kPtrParamKeys"]


def test_the_param_kinds_are_the_schemas_kind_enum(tmp_path):
    """x-fa-contract.params gives every kind of $defs/param its packed size
    (ParamKinds.inc, what ParamPack.cpp lays out), in the enum's order (the
    runtime's ParamKind); a schema whose two lists differ is refused."""
    kinds = contract.param_kinds()
    assert list(kinds) == contract.schema_values()["kParamKinds"]
    table = contract.cpp_tables(contract.contract())["ParamKinds.inc"]
    for kind, k in kinds.items():
        assert f'FA_PARAM_KIND("{kind}", {k["bytes"]}, {k["align"]})' in table
    with open(contract.SCHEMA) as f:
        schema = json.load(f)
    del schema["x-fa-contract"]["params"]["f32"]
    path = tmp_path / "schema.json"
    path.write_text(json.dumps(schema))
    with pytest.raises(ValueError, match=r"x-fa-contract\.params: .* are not "
                                         r"the parameter kinds"):
        contract.contract(str(path))


def test_contract_descriptions_are_prose_not_rows():
    """"description" entries document the contract in the schema; they are
    no role, symbol, op or kind of the tables."""
    with open(contract.SCHEMA) as f:
        raw = json.load(f)["x-fa-contract"]
    assert "description" in raw["params"]
    c = contract.contract()
    for group in ("symbols", "operands", "ops", "params"):
        assert "description" not in c[group]


def test_the_generated_schema_reference_is_current():
    """docs/generated/BundleSchema.md is what schema_doc.py renders from the
    schemas: a rule edited in a description without `ninja fa-doc` fails
    here rather than leaving the page stale."""
    from fa_mlir import schema_doc
    with open(os.path.join(REPO, "docs", "generated", "BundleSchema.md")) as f:
        assert f.read() == schema_doc.render(), \
            "run `ninja -C build fa-doc` (python/fa_mlir/schema_doc.py)"


def test_the_schema_reference_names_every_rule_holder():
    """Every field of both documents, every role, op, symbol and parameter
    kind has its row in the reference."""
    from fa_mlir import schema_doc
    page = schema_doc.render()
    c = contract.contract()
    for group in ("operands", "ops", "params"):
        for name in c[group]:
            assert f"| `{name}` |" in page, (group, name)
    for name in contract.symbol_names():
        assert f"| `{name}` |" in page, name
    with open(contract.SCHEMA) as f:
        for name in json.load(f)["properties"]:
            assert f"| `{name}` |" in page, name
