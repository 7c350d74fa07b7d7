"""The exchange settings every nbgrader config on the hub loads (student/ and grader/):
where the exchange is and the closed exchange's classes (autograder/exchange.py)."""

import os

c = get_config()  # noqa: F821 - injected by traitlets

c.CourseDirectory.course_id = os.environ.get("CS336_COURSE", "cs336-lecture2")
c.Exchange.root = os.environ.get("CS336_EXCHANGE", "/srv/nbgrader/exchange")
for action, name in [("release_assignment", "ReleaseAssignment"),
                     ("fetch_assignment", "FetchAssignment"), ("list", "List"),
                     ("submit", "Submit"), ("collect", "Collect"),
                     ("release_feedback", "ReleaseFeedback"), ("fetch_feedback", "FetchFeedback")]:
    setattr(c.ExchangeFactory, action, f"autograder.exchange.{name}")
