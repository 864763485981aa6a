"""Simulator fixtures: every test gets fresh fakes and a fresh virtual clock."""
import pytest

from hauntbox_sim.fakes import install as sim_install


@pytest.fixture
def clock():
    return sim_install.install()


@pytest.fixture
def run():
    return sim_install.run
