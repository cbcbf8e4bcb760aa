"""A file the user owns is not replaced without the explicit flag, a symbolic link included, even one to nothing
(``write_run``, ``fuse -o``, ``--plot``); a folder given as a file is called a folder."""
import os

import pytest

from irmeasures_ext.cli import main
from irmeasures_ext.comparison.plot import check_plot_path
from irmeasures_ext.errors import ComparisonError, RunWriteError
from irmeasures_ext.ir_metadata import write_run

QRELS = 'q1 0 d1 1\nq1 0 d2 0\nq2 0 d4 2\n'
RUN_A = 'q1 Q0 d2 1 0.9 a\nq1 Q0 d1 2 0.5 a\nq2 Q0 d4 1 2.0 a\n'
RUN_B = 'q1 Q0 d1 1 0.9 b\nq1 Q0 d2 2 0.5 b\nq2 Q0 d4 1 1.0 b\n'


@pytest.fixture
def files(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for name, text in (('qrels', QRELS), ('a.txt', RUN_A), ('b.txt', RUN_B)):
        (tmp_path / name).write_text(text)
    return tmp_path


def dangling(files, name: str) -> str:
    """A symbolic link ``name`` to a file that does not exist."""
    os.symlink('nowhere', files / name)
    return name


def assert_still_dangling(files, name: str) -> None:
    assert os.readlink(files / name) == 'nowhere' and not (files / 'nowhere').exists()


def test_write_run_does_not_replace_a_dangling_link(files):
    link = dangling(files, 'd.txt')
    with pytest.raises(RunWriteError) as raised:
        write_run('a.txt', link)
    assert str(raised.value) == ('d.txt: exists; give another file name, or replace it with overwrite=True '
                                 '(--overwrite on the command line)')
    assert_still_dangling(files, link)
    write_run('a.txt', link, overwrite=True)  # (the link replaced by the file, as a file is)
    assert not os.path.islink(link) and len((files / link).read_text().splitlines()) == 3


def test_fuse_does_not_replace_a_dangling_link(files, capsys):
    link = dangling(files, 'd.txt')
    assert main(['fuse', 'a.txt', 'b.txt', '-o', link]) == 2
    assert capsys.readouterr().err == ('irmeasures-ext: error: d.txt: exists; give another file name, or replace it '
                                       'with overwrite=True (--overwrite on the command line)\n')
    assert_still_dangling(files, link)


def test_plot_does_not_replace_a_dangling_link(files, capsys):
    link = dangling(files, 'd.png')
    message = 'd.png: exists; give another file name, or replace it with --overwrite (overwrite=True in Python)'
    with pytest.raises(ComparisonError) as raised:
        check_plot_path(link)  # (compare's, reproduce's and judges' --plot)
    assert str(raised.value) == message
    assert main(['compare', 'qrels', 'a.txt', 'b.txt', 'AP', '--plot', link]) == 2
    assert capsys.readouterr() == ('', f'irmeasures-ext: error: {message}\n')
    assert_still_dangling(files, link)


def test_a_folder_named_as_a_plot_is_called_a_folder(files, capsys):
    (files / 'pdir.png').mkdir()
    message = 'pdir.png: is a folder; give a file name'
    for overwrite in (False, True):
        with pytest.raises(ComparisonError) as raised:
            check_plot_path('pdir.png', overwrite)
        assert str(raised.value) == message
    assert main(['compare', 'qrels', 'a.txt', 'b.txt', 'AP', '--plot', 'pdir.png', '--overwrite']) == 2
    assert capsys.readouterr() == ('', f'irmeasures-ext: error: {message}\n')


@pytest.mark.parametrize('write,error', [
    (lambda target, flag: write_run('a.txt', target, overwrite=flag), RunWriteError),
    (lambda target, flag: check_plot_path(target, flag), ComparisonError)])
def test_overwrite_must_be_a_bool_not_a_truthy_text(files, write, error):
    (files / 'mine.png').write_text('mine')
    with pytest.raises(error, match="overwrite must be True or False, got 'no'"):
        write('mine.png', 'no')
    assert (files / 'mine.png').read_text() == 'mine'


def test_a_folder_that_cannot_be_written_is_said_so(files, monkeypatch):
    monkeypatch.setattr(os, 'access', lambda path, mode: not mode & os.W_OK)  # (as root's on a read-only system)
    with pytest.raises(ComparisonError) as raised:
        check_plot_path('p.png')
    assert str(raised.value) == 'p.png: cannot write into the folder . (no permission, or a read-only file system)'


def test_names_as_long_as_a_file_name_may_be_are_written_and_longer_ones_refused_on_every_entry_point(files, capsys):
    # (what is written goes first to a file beside its path, named after it: the name cut to fit)
    long_run, long_plot = 'f' * 251 + '.txt', 'p' * 251 + '.png'  # (255 bytes)
    assert main(['fuse', 'a.txt', 'b.txt', '-o', long_run]) == 0
    assert main(['compare', 'qrels', 'a.txt', 'b.txt', 'AP', '--plot', long_plot]) == 0
    assert (files / long_plot).read_bytes().startswith(b'\x89PNG') and len((files / long_run).read_text().split()) == 18
    capsys.readouterr()
    for name, command, error in (('f' * 256 + '.txt', ['fuse', 'a.txt', 'b.txt', '-o'], RunWriteError),
                                 ('p' * 256 + '.png', ['compare', 'qrels', 'a.txt', 'b.txt', 'AP', '--plot'],
                                  ComparisonError)):
        what = 'the run' if error is RunWriteError else 'the plot'
        message = f'{name}: cannot write {what}: File name too long; nothing was written there'
        assert main([*command, name]) == 2
        assert capsys.readouterr().err == f'irmeasures-ext: error: {message}\n'
        with pytest.raises(error) as raised:
            write_run('a.txt', name) if error is RunWriteError else check_plot_path(name)
        assert str(raised.value) == message
    assert sorted(os.listdir(files)) == sorted(['qrels', 'a.txt', 'b.txt', long_run, long_plot])
