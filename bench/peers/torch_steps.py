"""The cases in PyTorch on the CPU, eager, without autograd: the same math as
the .graph files with the gradients written out as the graphs do. Inputs are
converted to tensors once, outside the timed calls."""
import torch

from cases import chain_ops

torch.set_grad_enabled(False)


class TorchStep:
    def __init__(self, case, init):
        self.case = case
        self.state = {k: torch.from_numpy(init[k].copy()) for k in case.shared}

    def bind(self, inputs):
        args = [torch.from_numpy(inputs[k].copy(order="C"))
                for k in self.case.input_names()]
        step = getattr(self, self.case.kind)
        return lambda: step(*args)

    def results(self, inputs, calls):
        call = self.bind(inputs)
        for _ in range(calls):
            out = call()
        res = {self.case.outputs[0]: out.numpy()}
        res.update({k: v.numpy() for k, v in self.state.items()})
        return res

    def example(self, x, y, z):
        return (x + y + z) * 2.0

    def chain(self, x):
        v = x
        for op, c in chain_ops(self.case.n):
            v = v + c if op == "add" else v * c
        return v

    def logreg(self, x, y):
        s = self.state
        w, b = s["w"], s["b"]
        p = torch.sigmoid(x @ w + b)
        xent = -(y * torch.log(p) + (1.0 - y) * torch.log(1.0 - p))
        cost = xent.mean() + 0.01 * (w * w).sum()
        gz = (p - y) / float(x.shape[0])
        gw = x.T @ gz + 0.02 * w
        gb = gz.sum()
        s["w"], s["b"] = w - 0.1 * gw, b - 0.1 * gb
        return cost

    def mlp(self, x, y):
        s = self.state
        W1, b1, W2, b2 = s["W1"], s["b1"], s["W2"], s["b2"]
        h = torch.tanh(x @ W1 + b1)
        logits = h @ W2 + b2
        ls = torch.log_softmax(logits, dim=1)
        cost = -(y * ls).sum(dim=1).mean()
        dl = (torch.softmax(logits, dim=1) - y) / float(x.shape[0])
        dh = (dl @ W2.T) * (1.0 - h * h)
        s["W2"] = W2 - 0.1 * (h.T @ dl)
        s["b2"] = b2 - 0.1 * dl.sum(dim=0)
        s["W1"] = W1 - 0.1 * (x.T @ dh)
        s["b1"] = b1 - 0.1 * dh.sum(dim=0)
        return cost


def versions():
    return {"torch": torch.__version__,
            "torch threads": str(torch.get_num_threads())}
