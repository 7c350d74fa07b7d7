from lecture_utils.exercises import unfinished_message, uses_exercise


def test_an_unfinished_exercise_is_reported_not_raised(capsys):
    with uses_exercise(2):
        raise NotImplementedError()
    assert capsys.readouterr().out.strip() == "Finish exercise 2 above to see this."


def test_several_exercises_are_named_together():
    assert unfinished_message(1, 2, 3) == "Finish exercises 1, 2 and 3 above to see this."


def test_a_demo_assert_on_a_wrong_answer_says_which_exercise(capsys):
    with uses_exercise(1):
        assert 6.0 == 2.0  # what a forward-only training_flops would give
    assert "exercise 1 gave something else" in capsys.readouterr().out


def test_other_errors_still_surface():
    try:
        with uses_exercise(1):
            raise ZeroDivisionError("the student's own bug")
    except ZeroDivisionError:
        pass
    else:
        raise AssertionError("a real bug in the student's code must not be hidden")


def test_a_finished_exercise_runs_the_demo(capsys):
    with uses_exercise(1):
        print("6.3e24")
    assert capsys.readouterr().out == "6.3e24\n"
