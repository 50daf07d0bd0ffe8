"""The callback of a Py Apply: a PyTensor node's own perform."""
import numpy as np

_TOKEN = np.zeros((), np.int8)


def make_perform(node, readers, cells):
    """perform(arrays) -> outputs for graphjit's apply_python.

    readers[i] says where node input i comes from: ("arg", k, is_scalar)
    the k-th array graphjit passes (a ScalarType value is a NumPy scalar in
    PyTensor), ("cell", c) a Python-side value, ("const", v) a constant.
    cells[j] is None for an output graphjit holds, else the Cell that keeps
    it (a token is then returned last).
    """
    op_perform = node.op.perform
    held = [c is None for c in cells]
    with_token = not all(held)

    def perform(arrays):
        args = []
        for r in readers:
            if r[0] == "arg":
                a = arrays[r[1]]
                args.append(a[()] if r[2] else a)
            elif r[0] == "cell":
                args.append(r[1].value)
            else:
                args.append(r[1])
        storage = [[None] for _ in node.outputs]
        op_perform(node, args, storage)
        results = []
        for s, cell in zip(storage, cells):
            if cell is None:
                results.append(s[0])
            else:
                cell.value = s[0]
        if with_token:
            results.append(_TOKEN)
        return results

    perform.__name__ = "perform_" + type(node.op).__name__
    return perform
