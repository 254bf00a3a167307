"""Progress bars end at their totals: cloning before PPO (training/kickstart.py)."""

from __future__ import annotations

from pathlib import Path

from training.config import load_config

ROOT = Path(__file__).parent.parent


class RecordingBar:
    """The parts of a tqdm bar that cloning uses, kept for the test to read."""

    def __init__(self, total: int):
        self.total, self.n, self.disable, self.lines = total, 0, False, []

    def update(self, count: int) -> None:
        self.n += count

    def refresh(self) -> None:
        pass

    def set_postfix(self, **measures: str) -> None:
        pass

    def write(self, line: str) -> None:
        self.lines.append(line)


def test_the_cloning_bar_ends_at_its_total_and_a_line_marks_the_end(tmp_path):
    from training.kickstart import clone_teacher
    from training.selfplay import Run

    config = load_config(ROOT / "configs" / "smoke.yaml", ["kickstart.decisions=1000"])
    run = Run(config, tmp_path, resume=False)
    bar = RecordingBar(total=config.kickstart.decisions)
    measures = clone_teacher(run.model, config.kickstart, seed=0, progress=bar)
    assert measures["decisions"] > 1000  # whole episodes: the decisions asked for, rounded up
    assert bar.n == bar.total == measures["decisions"]
    assert bar.lines == [f"cloning greedy done: {measures['decisions']} decisions, accuracy {measures['accuracy']:.3f}"]
