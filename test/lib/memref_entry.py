"""The entry functions the numeric tests compile: tensors in, tensors out.

`entry_function` wraps one line of fa ops (which read `%<name>_t` and define
`%r0`, `%r1`, ...) into a `func.func` taking every input and result as a
memref (`llvm.emit_c_interface`, so fa_mlir.memref.CompiledFunction can call
it with numpy arrays in the order inputs, then results).
"""


def entry_function(name, args, results, op_line):
    """`args`, `results`: (name, shape-and-type text like '2x4xf32')."""
    params = ", ".join(f"%{n}: memref<{t}>" for n, t in args + results)
    body = "".join(f"  %{n}_t = bufferization.to_tensor %{n} restrict : "
                   f"memref<{t}> to tensor<{t}>\n" for n, t in args)
    body += op_line
    body += "".join(f"  bufferization.materialize_in_destination %r{k} in "
                    f"restrict writable %{n} : (tensor<{t}>, memref<{t}>) "
                    f"-> ()\n" for k, (n, t) in enumerate(results))
    return (f"func.func @{name}({params}) attributes "
            f"{{llvm.emit_c_interface}} {{\n{body}  return\n}}\n")
