import math

from lecture_utils import napkin


def test_lecture_training_flops():
    assert math.isclose(napkin.training_flops(70e9, 15e12), 6.3e24, rel_tol=1e-12)


def test_lecture_flops_per_day_and_days():
    per_day = napkin.flops_per_day(1024, 989.5e12, 0.5)
    assert math.isclose(per_day, 4.377e22, rel_tol=1e-3)
    assert round(napkin.training_days(6.3e24, 1024, 989.5e12, 0.5), 1) == 143.9


def test_lecture_largest_model_on_eight_h100s():
    assert napkin.max_trainable_params(8, 80e9) == 40e9
    assert napkin.max_trainable_params(8, 80e9, bytes_per_param=8) == 80e9


def test_eight_h100s_for_two_weeks_at_peak():
    # The lecture's slip: this is two weeks' worth, not one week's.
    two_weeks = 8 * 989.5e12 * 14 * napkin.SECONDS_PER_DAY
    assert math.isclose(two_weeks, 9.575e21, rel_tol=1e-3)
    assert math.isclose(napkin.training_days(two_weeks, 8, 989.5e12, 1.0), 14)
