"""The README's Python example and the package's examples run as tests."""
import re
import subprocess
import sys

from conftest import REPO


def python_blocks(path):
    return re.findall(r"```python\n(.*?)```", path.read_text(), flags=re.S)


def test_the_readme_python_example_prints_a_private_mean(capsys):
    import numpy as np

    blocks = python_blocks(REPO / "README.md")
    assert blocks, "the README has no Python example"
    namespace = {}
    for block in blocks:
        exec(compile(block, "README.md", "exec"), namespace)
    assert capsys.readouterr().out.strip()
    # What the example claims: the private mean within its bound of the truth, closer than the
    # empirical mean that the cluster pulls away.
    est, X = namespace["est"], namespace["X"]
    truth = np.array([1.0, -2.0, 0.5])
    error = np.linalg.norm(est.location_ - truth)
    assert error <= est.release_["accuracy"][0]["bound"]
    assert error < np.linalg.norm(X.mean(axis=0) - truth)


def test_the_package_readme_example_runs(capsys):
    for block in python_blocks(REPO / "python" / "README.md"):
        exec(compile(block, "python/README.md", "exec"), {})
    assert capsys.readouterr().out.strip()


def test_the_notebook_sized_example_runs():
    example = REPO / "python" / "examples" / "robust_mean_and_covariance.py"
    out = subprocess.run([sys.executable, str(example)], capture_output=True, text=True, timeout=900)
    assert out.returncode == 0, out.stderr
    assert "sosdp" in out.stdout and "empirical" in out.stdout
