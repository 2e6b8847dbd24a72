"""Hooks for scripts/fuzz-api.sh: work around schemathesis' own quirks, nothing of ours.

schemathesis 4.32's coverage phase, while it varies one query parameter, fills a
`content: application/json` parameter it is not varying with the placeholder `[0]` and still
counts the case as schema-valid. Our `operations` parameter is a list of objects, so the
server rightly answers 400 `invalid_operation`, and the run reports a "schema-valid request
rejected" that is not one. Only that placeholder, only in cases meant to be valid, becomes an
empty list; everything schemathesis generates for `operations` itself is sent as it is.
"""

import schemathesis

PLACEHOLDER = "[0]"


@schemathesis.hook
def map_case(context, case):
    query = case.query or {}
    if query.get("operations") == PLACEHOLDER and not case.meta.generation.mode.is_negative:
        query["operations"] = "[]"
    return case
