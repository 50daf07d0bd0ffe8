"""graphjit called from Python in the harness's own process (the graphjit
package, docs/python.md), timed like every other peer: the same .graph
function, its shared variables set to the same initial values, the inputs
handed over as NumPy arrays."""
import os

import graphjit

from cases import ROOT


class GraphjitStep:
    def __init__(self, case, init, profile=False):
        self.case = case
        self.module = graphjit.load(os.path.join(ROOT, case.graph))
        for name, value in init.items():
            self.module.shared[name].set_value(value)
        keywords = {"profile": True} if profile else {}
        if not case.fused:
            keywords["optimizer_excluding"] = "fusion"
        self.function = self.module.function(case.function, **keywords)

    def bind(self, inputs):
        """A no-argument callable making one call on these inputs."""
        f = self.function
        args = [inputs[k] for k in self.case.input_names()]
        return lambda: f(*args)

    def applies(self):
        return len(self.function.applies())
