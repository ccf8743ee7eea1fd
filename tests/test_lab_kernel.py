"""The lab's kernel configuration: autoreload on for every kernel of the environment (notebook 00 shows it live)."""

import sys

from grader import lab_kernel


def test_install_writes_the_kernel_config_once(tmp_path):
    path = lab_kernel.install(tmp_path)
    assert path == tmp_path / "etc" / "ipython" / "ipython_kernel_config.py"
    assert '"autoreload"' in path.read_text() and '"%autoreload 2"' in path.read_text()
    before = path.stat().st_mtime_ns
    assert lab_kernel.install(tmp_path) == path and path.stat().st_mtime_ns == before  # unchanged: not rewritten
    path.write_text("# someone's edit\n")
    lab_kernel.install(tmp_path)
    assert path.read_text() == lab_kernel.CONFIG  # a stale or edited file is put right


def test_ipython_reads_the_environments_config_folder():
    from IPython.core import application

    assert str(lab_kernel.config_path(sys.prefix).parent) in application.ENV_CONFIG_DIRS + application.SYSTEM_CONFIG_DIRS
