"""The packaged MiniLM's graph rewritten so its matrix products run in int8 arithmetic.

The model stores int8 weights as ``Mul(Cast(W_int8), scale)``; ONNX Runtime folds that into float32
at load, so every query multiplies by 42 MB of float weights (4-5 CPU-ms for a short query, almost
all of a ``tool_search``). Here each ``MatMul`` by such a weight becomes ONNX Runtime's
``DynamicQuantizeMatMul`` over the int8 weights themselves (the activations are quantized per call),
and each embedding lookup ``Gather(Mul(Cast(W_int8), scale), ids)`` gathers the int8 rows first and
scales only those. Same weights, same tokenizer; the vectors differ slightly from the float run
(cosine 0.987-0.999 on short queries), so tools and queries must both be embedded this way.

Why by hand: ONNX files are protocol buffers, and the ``onnx`` package that edits them would be a new
dependency (tens of MB) for a one-off rewrite at load. Only the few fields the rewrite touches are
decoded; every other field is copied through byte for byte. Field numbers are ONNX's ``onnx.proto``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field

__all__ = ["GraphRewriteError", "int8_matmul_model"]

# onnx.proto field numbers
MODEL_GRAPH, MODEL_OPSET = 7, 8
OPSET_DOMAIN, OPSET_VERSION = 1, 2
GRAPH_NODE, GRAPH_INITIALIZER = 1, 5
NODE_INPUT, NODE_OUTPUT, NODE_NAME, NODE_OP_TYPE, NODE_ATTRIBUTE, NODE_DOMAIN = 1, 2, 3, 4, 5, 7
ATTR_NAME, ATTR_INT, ATTR_TYPE = 1, 3, 20
ATTR_TYPE_INT = 2
TENSOR_DIMS, TENSOR_DATA_TYPE, TENSOR_NAME = 1, 2, 8
FLOAT, INT8 = 1, 3
VARINT, FIXED64, LENGTH, FIXED32 = 0, 1, 2, 5

MICROSOFT = "com.microsoft"


class GraphRewriteError(ValueError):
    """The model is not shaped as the rewrite expects (another model or export): use it unchanged."""


def _varint(data: bytes | memoryview, pos: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        if pos >= len(data):
            raise GraphRewriteError("truncated varint")
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, pos
        shift += 7


def _fields(data: bytes | memoryview) -> Iterator[tuple[int, int, int | memoryview, memoryview]]:
    """(field number, wire type, value, the field's raw bytes) for each field of one message."""
    view = memoryview(data)
    pos = 0
    while pos < len(view):
        start = pos
        key, pos = _varint(view, pos)
        number, wire = key >> 3, key & 7
        value: int | memoryview
        if wire == VARINT:
            value, pos = _varint(view, pos)
        elif wire == LENGTH:
            size, pos = _varint(view, pos)
            value, pos = view[pos : pos + size], pos + size
        elif wire in (FIXED64, FIXED32):
            size = 8 if wire == FIXED64 else 4
            value, pos = view[pos : pos + size], pos + size
        else:
            raise GraphRewriteError(f"unsupported wire type {wire}")
        if pos > len(view):
            raise GraphRewriteError("truncated field")
        yield number, wire, value, view[start:pos]


def _encode_varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def _key(number: int, wire: int) -> bytes:
    return _encode_varint(number << 3 | wire)


def _bytes_field(number: int, payload: bytes) -> bytes:
    return _key(number, LENGTH) + _encode_varint(len(payload)) + payload


def _int_field(number: int, value: int) -> bytes:
    return _key(number, VARINT) + _encode_varint(value)


@dataclass
class _Node:
    inputs: list[str] = field(default_factory=list)
    outputs: list[str] = field(default_factory=list)
    op_type: str = ""
    domain: str = ""
    raw: bytes = b""

    @classmethod
    def parse(cls, raw: memoryview) -> _Node:
        node = cls(raw=bytes(raw))
        for number, _, value, _ in _fields(raw):
            if isinstance(value, int):
                continue
            if number == NODE_INPUT:
                node.inputs.append(str(value, "utf-8"))
            elif number == NODE_OUTPUT:
                node.outputs.append(str(value, "utf-8"))
            elif number == NODE_OP_TYPE:
                node.op_type = str(value, "utf-8")
            elif number == NODE_DOMAIN:
                node.domain = str(value, "utf-8")
        return node


def _node(op_type: str, inputs: list[str], outputs: list[str], name: str, domain: str = "", **ints: int) -> bytes:
    body = b"".join(_bytes_field(NODE_INPUT, i.encode()) for i in inputs)
    body += b"".join(_bytes_field(NODE_OUTPUT, o.encode()) for o in outputs)
    body += _bytes_field(NODE_NAME, name.encode()) + _bytes_field(NODE_OP_TYPE, op_type.encode())
    for attr, value in ints.items():
        attribute = _bytes_field(ATTR_NAME, attr.encode()) + _int_field(ATTR_INT, value)
        body += _bytes_field(NODE_ATTRIBUTE, attribute + _int_field(ATTR_TYPE, ATTR_TYPE_INT))
    if domain:
        body += _bytes_field(NODE_DOMAIN, domain.encode())
    return body


@dataclass(frozen=True)
class _Tensor:
    """What the rewrite needs of an initializer: its element type and shape, and its bytes to copy."""

    data_type: int
    dims: list[int]
    raw: memoryview


def _initializer(raw: memoryview) -> tuple[str, _Tensor]:
    """An initializer's name, type and dims (packed or not); its data is not decoded."""
    name, data_type, dims = "", 0, []
    for number, _, value, _ in _fields(raw):
        if number == TENSOR_NAME and not isinstance(value, int):
            name = str(value, "utf-8")
        elif number == TENSOR_DATA_TYPE and isinstance(value, int):
            data_type = value
        elif number == TENSOR_DIMS:
            if isinstance(value, int):
                dims.append(value)
            else:
                pos = 0
                while pos < len(value):
                    dim, pos = _varint(value, pos)
                    dims.append(dim)
    return name, _Tensor(data_type, dims, raw)


def _as_vector(raw: memoryview, length: int, name: str) -> bytes:
    """A copy of an initializer named ``name`` with dims ``[length]`` (a ``(1, N)`` row of scales as ``(N,)``)."""
    kept = b"".join(bytes(chunk) for number, _, _, chunk in _fields(raw) if number not in (TENSOR_DIMS, TENSOR_NAME))
    return _int_field(TENSOR_DIMS, length) + _bytes_field(TENSOR_NAME, name.encode()) + kept


def _rewrite_graph(graph: memoryview) -> tuple[bytes, int]:
    nodes: list[_Node] = []
    initializers: dict[str, _Tensor] = {}
    rest: list[bytes] = []
    for number, _, value, chunk in _fields(graph):
        if number == GRAPH_NODE and not isinstance(value, int):
            nodes.append(_Node.parse(value))
        elif number == GRAPH_INITIALIZER and not isinstance(value, int):
            name, tensor = _initializer(value)
            initializers[name] = tensor
            rest.append(bytes(chunk))
        else:
            rest.append(bytes(chunk))
    producer = {out: node for node in nodes for out in node.outputs}
    uses = Counter(name for node in nodes for name in node.inputs)

    def dequantized(name: str) -> tuple[_Node, _Node, str, str] | None:
        """``name`` = Mul(Cast(int8 initializer), float scale), each used once: (mul, cast, weight, scale)."""
        mul = producer.get(name)
        if mul is None or mul.op_type != "Mul" or len(mul.inputs) != 2 or uses[name] != 1:
            return None
        cast = producer.get(mul.inputs[0])
        if cast is None or cast.op_type != "Cast" or uses[mul.inputs[0]] != 1:
            return None
        weight, scale = initializers.get(cast.inputs[0]), initializers.get(mul.inputs[1])
        if weight is None or scale is None or weight.data_type != INT8 or scale.data_type != FLOAT:
            return None
        return mul, cast, cast.inputs[0], mul.inputs[1]

    dropped: set[int] = set()
    replaced: dict[int, bytes] = {}
    added: list[bytes] = []
    rewritten = 0
    for node in nodes:
        if node.op_type == "MatMul" and not node.domain and (found := dequantized(node.inputs[1])):
            mul, cast, weight, scale = found
            weight_dims, scale_dims = initializers[weight].dims, initializers[scale].dims
            if len(weight_dims) != 2 or scale_dims not in ([1, weight_dims[1]], [weight_dims[1]]):
                continue  # DynamicQuantizeMatMul takes one scale per column of the weight
            column_scale = f"{scale}__column"
            added.append(
                _bytes_field(GRAPH_INITIALIZER, _as_vector(initializers[scale].raw, weight_dims[1], column_scale))
            )
            replaced[id(node)] = _bytes_field(
                GRAPH_NODE,
                _node(
                    "DynamicQuantizeMatMul",
                    [node.inputs[0], weight, column_scale],
                    node.outputs,
                    f"{node.outputs[0]}__int8",
                    MICROSOFT,
                ),
            )
            dropped.update((id(mul), id(cast)))
            rewritten += 1
        elif node.op_type == "Gather" and not node.domain and (found := dequantized(node.inputs[0])):
            mul, cast, weight, scale = found
            if not initializers[weight].dims or initializers[scale].dims != [initializers[weight].dims[0], 1]:
                continue  # one scale per row: gathered with its row
            out, ids = node.outputs[0], node.inputs[1]
            replaced[id(node)] = b"".join(
                _bytes_field(GRAPH_NODE, part)
                for part in (
                    _node("Gather", [weight, ids], [f"{out}__q"], f"{out}__gather_q"),
                    _node("Gather", [scale, ids], [f"{out}__scale"], f"{out}__gather_scale"),
                    _node("Cast", [f"{out}__q"], [f"{out}__f"], f"{out}__cast", to=FLOAT),
                    _node("Mul", [f"{out}__f", f"{out}__scale"], [out], f"{out}__scaled"),
                )
            )
            dropped.update((id(mul), id(cast)))
            rewritten += 1
    body = bytearray()
    for node in nodes:
        if id(node) in dropped:
            continue
        if id(node) in replaced:
            body += replaced[id(node)]
        else:
            body += _bytes_field(GRAPH_NODE, node.raw)
    for chunk in rest:
        body += chunk
    for chunk in added:
        body += chunk
    return bytes(body), rewritten


def int8_matmul_model(model: bytes) -> bytes:
    """``model`` (ONNX bytes) with its int8-stored weights multiplied in int8 arithmetic (see the module doc).

    Raises ``GraphRewriteError`` when the bytes are not a protocol buffer, or no weight has the
    ``Mul(Cast(int8), scale)`` shape: then the model is not the one this was written for.
    """
    parts: list[bytes] = []
    rewritten = 0
    has_microsoft = False
    for number, _, value, chunk in _fields(model):
        if number == MODEL_GRAPH and not isinstance(value, int):
            graph, rewritten = _rewrite_graph(value)
            parts.append(_bytes_field(MODEL_GRAPH, graph))
        else:
            if number == MODEL_OPSET and not isinstance(value, int):
                domain = next((v for n, _, v, _ in _fields(value) if n == OPSET_DOMAIN and not isinstance(v, int)), b"")
                has_microsoft |= bytes(domain) == MICROSOFT.encode()
            parts.append(bytes(chunk))
    if rewritten == 0:
        raise GraphRewriteError("no int8-stored weight (Mul(Cast(int8), scale)) found to multiply in int8")
    if not has_microsoft:
        opset = _bytes_field(OPSET_DOMAIN, MICROSOFT.encode()) + _int_field(OPSET_VERSION, 1)
        parts.append(_bytes_field(MODEL_OPSET, opset))
    return b"".join(parts)
