# lit configuration for graphjit's command-line and pass tests.
# CTest runs each test file on its own and passes the build's paths as
# parameters (see test/CMakeLists.txt); `utils/test.sh` does that for you.
import os
import lit.formats

config.name = "graphjit"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".graph", ".test", ".ll"]
config.excludes = ["Inputs"]
config.test_source_root = os.path.dirname(__file__)

params = lit_config.params
bin_dir = params.get("graphjit_bin_dir")
llvm_tools = params.get("llvm_tools_dir", "/usr/lib/llvm-19/bin")
if not bin_dir:
    lit_config.fatal("run through ctest, or pass --param graphjit_bin_dir=BUILD/bin")
config.test_exec_root = params.get("graphjit_exec_root", os.path.join(bin_dir, "lit-out"))

# Longest names first: "%graphjit" is a prefix of the others.
plugin = params.get("graphjit_plugin", os.path.join(bin_dir, "..", "lib", "GraphjitPasses.so"))
config.substitutions.append(("%graphjit_plugin", plugin))
runtime_lib = params.get("graphjit_runtime_lib", os.path.join(bin_dir, "..", "lib", "libgraphjit_runtime.a"))
config.substitutions.append(("%graphjit_runtime_lib", runtime_lib))
config.substitutions.append(("%graphjit_bin_dir", bin_dir))
config.substitutions.append(("%graphjit_src", os.path.join(os.path.dirname(__file__), "..", "..")))
config.substitutions.append(("%graphjit_prof", os.path.join(bin_dir, "graphjit-prof")))
config.substitutions.append(("%graphjit", os.path.join(bin_dir, "graphjit")))
config.substitutions.append(("%opt", os.path.join(llvm_tools, "opt")))
config.substitutions.append(("%llc", os.path.join(llvm_tools, "llc")))
config.substitutions.append(("%clangxx", os.path.join(llvm_tools, "clang++")))
# What a program linked against a sanitized libgraphjit_runtime needs.
config.substitutions.append(("%sanitize_flags", params.get("sanitize_flags", "")))
config.substitutions.append(("%llvm_lib_dir", os.path.join(os.path.dirname(llvm_tools), "lib")))
config.substitutions.append(("%llvm_include_dir", os.path.join(os.path.dirname(llvm_tools), "include")))
config.substitutions.append(("%python", params.get("python", "/usr/bin/python3")))
# The CUDA toolkit's PTX assembler checks the PTX of the GPU path (CI has
# the toolkit but no GPU).
cuda_home = params.get("cuda_home", os.environ.get("CUDA_HOME", "/usr/local/cuda"))
config.substitutions.append(("%ptxas", os.path.join(cuda_home, "bin", "ptxas")))
config.substitutions.append(("%cuda_stub_lib", os.path.join(cuda_home, "lib64", "stubs", "libcuda.so")))
config.substitutions.append(("%examples", os.path.join(os.path.dirname(__file__), "..", "..", "examples")))
config.environment["PATH"] = os.pathsep.join([llvm_tools, config.environment.get("PATH", os.environ.get("PATH", ""))])
# Compiling in parts needs more than one hardware thread.
if (os.cpu_count() or 1) > 1:
    config.available_features.add("threads")
# Keep FileCheck's output free of colour codes.
config.environment["TERM"] = "dumb"
# Compiled objects are cached in the build tree, never in the user's home.
config.environment["GRAPHJIT_CACHE_DIR"] = os.path.join(config.test_exec_root, "jit-cache")
