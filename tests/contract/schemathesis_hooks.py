"""
Schemathesis extension hooks for tests/contract/fuzz.test.ts (loaded through SCHEMATHESIS_HOOKS).

- `error_envelope` check: every 4xx/5xx answer is the part 7 envelope, exactly
  `{ error: { type, code, message, doc_url, request_id, param?, details? } }`, with the type the
  spec's table gives for that HTTP status.
- Real ids: CONTRACT_FIXTURES names a JSON file `{ "<METHOD> <path template>": { "<param>": [ids...] } }`
  written by the test; for those operations the generated path parameters are, half of the
  time, replaced by a real object's id so the fuzzer reaches past the 404 into the handlers.
  Each key the hook serves real ids for is appended to CONTRACT_FIXTURES_USED (one per line), so
  the test can tell that every fixture reached its operation (no silently mismatched key).
"""
import json
import os
import threading

import schemathesis
from hypothesis import strategies as st
from hypothesis.internal import lambda_sources


def _serialised(fn):
    lock = threading.Lock()

    def wrapper(*args, **kwargs):
        with lock:
            return fn(*args, **kwargs)

    return wrapper


# Hypothesis describes lambdas by parsing their source with `ast.parse`, which is not thread-safe
# on CPython 3.11 ("AST constructor recursion depth mismatch" with --workers 2). Serialise it.
lambda_sources.lambda_description = _serialised(lambda_sources.lambda_description)

# spec part 7: HTTP status -> the error types allowed for it.
TYPES_BY_STATUS = {
    400: {"invalid_request"},
    401: {"authentication_error"},
    402: {"quota_exhausted"},
    403: {"permission_error"},
    404: {"not_found"},
    405: {"invalid_request"},
    409: {"conflict", "idempotency_error", "capability_unavailable"},
    422: {"invalid_request"},
    429: {"rate_limit_error"},
    500: {"api_error"},
    502: {"provider_error"},
    503: {"temporarily_unavailable", "provider_error"},
}
REQUIRED = ("type", "code", "message", "doc_url", "request_id")
OPTIONAL = ("param", "details")


@schemathesis.check
def no_server_fault(ctx, response, case):
    """No 5xx, except 503 `temporarily_unavailable`: an operator switch or the test-mode gate that
    another test suite may flip while the fuzzer runs (spec part 6 switches, part 1 rule 5), which is
    a documented answer of every gated operation rather than a fault."""
    if response.status_code < 500:
        return None
    if response.status_code == 503:
        try:
            err = json.loads(response.content).get("error", {})
        except ValueError:
            err = {}
        if isinstance(err, dict) and err.get("type") == "temporarily_unavailable":
            return None
    raise AssertionError(f"server error {response.status_code}: {response.content[:300]!r}")


@schemathesis.check
def error_envelope(ctx, response, case):
    """Every error response uses the part 7 envelope with the type its status prescribes."""
    if response.status_code < 400:
        return None
    try:
        body = json.loads(response.content)
    except ValueError as exc:
        raise AssertionError(f"error body is not JSON: {response.content[:200]!r}") from exc
    if not isinstance(body, dict) or set(body) != {"error"} or not isinstance(body["error"], dict):
        raise AssertionError(f"error body is not {{error: {{...}}}}: {body!r}")
    err = body["error"]
    missing = [k for k in REQUIRED if not isinstance(err.get(k), str) or not err.get(k)]
    if missing:
        raise AssertionError(f"error envelope lacks {missing}: {err!r}")
    extra = sorted(set(err) - set(REQUIRED) - set(OPTIONAL))
    if extra:
        raise AssertionError(f"error envelope has unknown keys {extra}: {err!r}")
    if "param" in err and not isinstance(err["param"], str):
        raise AssertionError(f"`param` must be a string: {err!r}")
    if "details" in err and not isinstance(err["details"], dict):
        raise AssertionError(f"`details` must be an object: {err!r}")
    if not err["request_id"].startswith("req_"):
        raise AssertionError(f"`request_id` must be a req_ id: {err!r}")
    allowed = TYPES_BY_STATUS.get(response.status_code)
    if allowed is None or err["type"] not in allowed:
        raise AssertionError(f"status {response.status_code} with error type {err['type']!r} (spec part 7 allows {sorted(allowed or [])})")
    return None


def _load_fixtures():
    path = os.environ.get("CONTRACT_FIXTURES")
    if not path:
        return {}
    with open(path, encoding="utf-8") as f:
        return json.load(f)


FIXTURES = _load_fixtures()
_USED_LOCK = threading.Lock()


def _record_used(key):
    path = os.environ.get("CONTRACT_FIXTURES_USED")
    if not path:
        return
    with _USED_LOCK, open(path, "a", encoding="utf-8") as f:
        f.write(key + "\n")


@schemathesis.hook
def flatmap_path_parameters(context, path_parameters):
    """Half of the cases use real ids (from the fixture file) for the operation's path parameters."""
    op = context.operation
    key = f"{op.method.upper()} {op.path}" if op is not None else None
    known = FIXTURES.get(key) if key else None
    if not known or not path_parameters:
        return st.just(path_parameters)
    # A negative case (a path parameter outside the document's `string`, 1 to 255 characters) keeps
    # its generated values: a real id there would make the case valid while schemathesis still
    # counts it as schema-violating (negative_data_rejection would then expect a 4xx).
    if not all(isinstance(v, str) and 1 <= len(v) <= 255 for v in path_parameters.values()):
        return st.just(path_parameters)
    names = [name for name in path_parameters if known.get(name)]
    if not names:
        return st.just(path_parameters)
    _record_used(key)
    # Named functions, not lambdas: hypothesis parses lambda sources to describe them, which is
    # not thread-safe on Python 3.11 (workers > 1).
    real_values = st.fixed_dictionaries({name: st.sampled_from(known[name]) for name in names})
    return st.one_of(st.just(path_parameters), real_values.map(_Merge(path_parameters)))


class _Merge:
    """Callable: the generated path parameters with some replaced by real ids."""

    def __init__(self, generated):
        self.generated = generated

    def __call__(self, real):
        out = dict(self.generated)
        out.update(real)
        return out

    def __repr__(self):
        return "with_real_ids"


@schemathesis.hook
def before_call(context, case, kwargs):
    """Drops a generated `cursor` before the call. A cursor is opaque and minted by the server
    (spec 4 conventions): one it did not mint is `400 cursor_invalid`, which the document cannot
    express (the parameter's description says so), so schemathesis would count every made-up cursor
    as a schema-valid request rejected (positive_data_acceptance). This is the one exclusion strict
    mode accepts without naming an operation (issue 24). Cursor decoding is fuzzed by
    tests/unit/pagination.test.ts and tests/contract/input-hardening.test.ts instead (decision in
    docs/decisions.md)."""
    query = getattr(case, "query", None)
    if isinstance(query, dict) and query.get("cursor") not in (None, ""):
        del query["cursor"]


# Rules a schema-valid request can still break, because they depend on the object's state, on
# another field or on the clock: JSON Schema states each field, not these. Keyed by operation
# label, each an allowed (status, code, param[, message excerpt]) with the reason (docs/decisions.md, issue 11).
# Everything else a schema-valid request gets refused for fails `positive_data_acceptance_stated`.
RULES_BEYOND_SCHEMA = {
    "POST /subscriptions": {
        (400, "parameter_invalid", "billing_cycle_anchor"): "the anchor is at most a day in the past and a year ahead (the clock)",
        (400, "settlement_destination_invalid", "settlement_destination_id"): "the destination must be a crypto entry on the service chain (the entry's state)",
        (400, "client_archived", "client_id"): "the client must not be archived (the client's state)",
    },
    "POST /orders": {
        (400, "destination_invalid", None): "the destination must fit the offer's side, network and currency (the offer's state; exactly one is in the document)",
        (400, "refund_address_not_applicable", "refund_address"): "a buy takes no refund address (the offer's state)",
        (400, "refund_address_invalid", "refund_address"): "the refund address must be an address on the offer's network (the offer's state)",
    },
    "POST /wallet/deposit_quotes": {
        (400, "currency_invalid", None): "the amount is in USDC or the chain's stablecoin (the deposit's asset, from the registry)",
        (400, "amount_invalid", None): "the amount carries the asset's scale, 6 (the registry)",
    },
    "POST /wallet/deposit_intents": {
        (400, "currency_invalid", None): "the amount is in USDC or the chain's stablecoin (the deposit's asset, from the registry)",
        (400, "amount_invalid", None): "the amount carries the asset's scale, 6 (the registry)",
        (400, "parameter_invalid", "refund_address"): "the refund address cannot be the zero address",
    },
    "POST /wallet/conversions": {
        (400, "conversion_pair_unsupported", "to_asset"): "`from_asset` and `to_asset` must be a pair of conversion_pairs (two fields)",
        (400, "currency_invalid", None): "the amount is in `from_asset` (two fields)",
        (400, "amount_invalid", None): "the amount carries the asset's scale, 6 (the registry)",
    },
    "PATCH /payment_links/{id}/reminder_schedule": {
        (422, "reminder_schedule_not_supported", "reminder_schedule"): "a crypto-only link has no reminder schedule (the link's state)",
    },
    "POST /payment_links/{id}/activate": {
        (400, "settlement_destination_required", "settlement_destination"): "the draft must have a settlement destination first (the link's state)",
    },
    "POST /payment_sessions/{token}/payments": {
        (400, "rail_not_allowed", "rail"): "the rail must be one the link offers now (the link's state)",
    },
    "POST /payouts/{id}/beneficiary": {
        (400, "parameter_missing", None): "the payout's rail decides which bank fields are required (the payout's state)",
        (400, "parameter_invalid", "rail"): "`rail` must be the payout's rail (the payout's state)",
        (400, "parameter_invalid", None, "does not apply to the"): "the payout's rail decides which bank fields apply (the payout's state)",
    },
    "POST /address_book/{id}/beneficiary": {
        (400, "parameter_missing", None): "the rail decides which bank fields are required (two fields)",
        (400, "parameter_invalid", None, "does not apply to the"): "the rail decides which bank fields apply (two fields)",
        (400, "address_book_entry_kind_mismatch", None): "bank details apply to bank entries only (the entry's state)",
    },
    "POST /payment_links": {
        (400, "allowed_rails_invalid_for_currency", "allowed_rails"): "each rail is offered for its currency only (two fields)",
        (400, "client_archived", "client_id"): "an archived client takes no new links (the client's state)",
        (400, "parameter_invalid", "expires_at", "in the future"): "`expires_at` must be in the future (the clock)",
    },
    "PATCH /payment_links/{id}": {
        (400, "parameter_missing", None, "needs a `name` or a `product_id`"): "a line item needs a `name` or a `product_id` (two fields)",
        (400, "allowed_rails_invalid_for_currency", "allowed_rails"): "each rail is offered for its currency only (two fields, or the stored link's currency)",
        (400, "client_archived", "client_id"): "an archived client takes no new links (the client's state)",
        (400, "parameter_invalid", "expires_at", "in the future"): "`expires_at` must be in the future (the clock)",
        (400, "parameter_invalid", "expires_at", "in the future"): "`expires_at` must be in the future (the clock)",
    },
    "POST /payroll_runs": {
        (400, "parameter_invalid", None): "a trimmed name or memo fits its limit (domain rule: the document bounds the raw string)",
        (400, "currency_mismatch", None): "a template's currency is fixed (the template's state)",
        (400, "duplicate_recipient", None): "a recipient appears once per run (two rows)",
        (400, "recipient_not_found", None): "a row's recipient_id must be the account's (the account's state)",
        (400, "pay_period_invalid", "pay_period_end"): "the pay period ends after it starts (two fields)",
        (422, "payroll_cap_exceeded", None): "caps of 10,000 USD per item, 25,000 USD per run, 500 rows (spec 8)",
    },
    "POST /payroll_templates": {
        (400, "parameter_invalid", None): "a trimmed name or memo fits its limit (domain rule: the document bounds the raw string)",
        (400, "currency_mismatch", None): "`currency` with `from_run_id` must be the run's (the run's state)",
        (400, "duplicate_recipient", None): "a recipient appears once per template (two rows)",
        (422, "payroll_cap_exceeded", None): "caps of 10,000 USD per item, 25,000 USD per run, 500 rows (spec 8)",
    },
    "POST /payroll_recipient_sessions/{token}/destination": {
        (400, "parameter_missing", None): "the destination `type` decides which fields are required (two fields)",
        (400, "parameter_invalid", None, "does not apply to"): "the destination `type` decides which fields apply (two fields)",
        (400, "parameter_invalid", "rail"): "the rail must pay in the run currency (the run's state)",
        (400, "parameter_invalid", "chain"): "wallets are paid on the sandbox chain only (domain rule)",
        (400, "parameter_invalid", None, "is not valid"): "bank fields and wallet addresses carry format and check digits (domain/bank-details.ts, EIP-55)",
        (409, "destination_already_submitted", None): "a session link accepts one destination (the item's state)",
        (409, "recipient_session_closed", None): "the run must be open and the item pending (the run's state)",
    },
    "POST /payroll_recipients/{id}/adopt_pending_destination": {
        (409, "no_pending_destination", None): "the recipient must have submitted a destination (the recipient's state)",
        (409, "pending_destination_changed", "expected_submitted_at"): "`expected_submitted_at` must be the stored submission time (the recipient's state)",
        (422, "destination_rail_keyless", None): "the destination must be payable in every open item's currency (the recipient's runs)",
    },
    "POST /payroll_runs/{id}/items/{item_id}/reissue_link": {
        (409, "payroll_run_state_changed", None): "links of finished or cancelled runs are not reissued (the run's state)",
    },
    "POST /payroll_runs/{id}/funding_instructions": {
        (409, "payroll_run_not_approved", None): "funding instructions follow approval (the run's state)",
        (409, "payroll_run_state_changed", None): "cancelled, executing or finished runs take no more funding (the run's state)",
        (409, "run_has_no_rows", None): "a run with no rows has nothing to fund (the run's rows)",
        (409, "funding_method_locked", None): "the funding method is fixed once money was observed (the providers' state)",
        (409, "capability_unavailable", None): "crypto funding needs the account's switch (the account's state)",
    },
    "POST /payouts/{id}/replace": {
        (400, "amount_invalid", "invoice_amount", "The minimum for"): "the corridor decides the minimum invoice amount (two fields)",
        (400, "amount_invalid", "invoice_amount", "The maximum for"): "the corridor decides the maximum invoice amount (two fields)",
        (400, "currency_mismatch", "invoice_amount"): "the corridor decides the invoice currency (two fields, or the payout's corridor)",
        (400, "parameter_missing", "recipient_email"): "`notify_recipient: true` needs a `recipient_email` (two fields, or the payout's)",
    },
    "POST /products": {
        (400, "currency_mismatch", None): "`unit_price.currency` must be the product's `currency` (two fields)",
    },
    "PATCH /products/{id}": {
        (400, "currency_mismatch", None): "`unit_price.currency` must be the product's `currency` (two fields, or the stored product's)",
    },
    "POST /address_book": {
        (400, "parameter_missing", None): "`kind` decides which fields are required (two fields)",
        (400, "parameter_invalid", None, "applies to crypto entries only"): "VASP fields belong to crypto entries (two fields)",
        (400, "parameter_invalid", None, "A bank entry has no"): "a bank entry has no chain or address (two fields)",
        (400, "address_invalid", "address"): "an address is valid for its chain, checksum included (two fields)",
    },
    "PATCH /address_book/{id}": {
        (400, "parameter_invalid", None): "crypto-only and bank-only fields follow the entry's kind (the entry's state)",
    },
    "POST /address_book/{id}/recheck": {
        (400, "address_book_entry_kind_mismatch", None): "only crypto entries are screened (the entry's state)",
    },
    "POST /api_keys": {
        (400, "parameter_invalid", "expires_at", "greater than"): "`expires_at` must be in the future (the clock)",
    },
    "POST /webhook_endpoints": {
        (400, "url_destination_forbidden", "url"): "a name that resolves to a non-public address or has an internal suffix (DNS)",
    },
    "PATCH /webhook_endpoints/{id}": {
        (400, "url_destination_forbidden", "url"): "a name that resolves to a non-public address or has an internal suffix (DNS)",
    },
    "POST /payouts/{id}/funding_instructions": {
        (400, "payout_source_chain_missing", "source_chain"): "an external-wallet payout created without `source_chain` must name it here (the payout's state)",
        (400, "parameter_invalid", "refund_address", "checksum"): "a mixed-case address must carry its EIP-55 checksum (a checksum, no pattern)",
        (400, "parameter_invalid", "refund_address", "zero address"): "the zero address is refused (funds sent there are lost)",
        (400, "parameter_invalid", "refund_address", "not accepted with funding_source"): "a service-wallet funding returns to the wallet, not to an address (two fields)",
    },
    "POST /wallet/wallets": {
        (400, "parameter_invalid", "address", "checksum"): "a mixed-case address must carry its EIP-55 checksum (a checksum, no pattern)",
    },
    "POST /wallet/send_intents": {
        (400, "parameter_invalid", "destination_address"): "an EIP-55 checksum, and never the zero address or the wallet itself (a checksum; the wallet's state)",
        (400, "parameter_invalid", "amount.currency"): "the wallet sends its network's stablecoin only (the environment's network)",
        (400, "amount_invalid", "amount"): "the route's minimum is 0.01 plus its bridge fee (two fields)",
        (400, "balance_insufficient", "amount"): "the wallet's balance must cover the send (the wallet's state)",
    },
    "POST /wallet/offramp_quotes": {
        (400, "parameter_invalid", "destination_payment_rail"): "the rail must pay the destination currency (two fields)",
        (400, "parameter_invalid", "amount.currency"): "an off-ramp spends the network's stablecoin (the environment's network)",
        (400, "amount_invalid", "amount"): "at least 1 USDC, and more than the fees (two fields)",
        (400, "parameter_invalid", "developer_fee_percent"): "at most 5 percent (a bound the pattern does not state)",
    },
    "POST /wallet/offramp_intents": {
        (400, "parameter_invalid", "destination_payment_rail"): "the rail must pay the destination currency and be the external account's (two fields; the account's state)",
        (400, "parameter_invalid", "amount.currency"): "an off-ramp spends the network's stablecoin (the environment's network)",
        (400, "amount_invalid", "amount"): "at least 1 USDC, and more than the fees (two fields)",
        (400, "parameter_invalid", "developer_fee_percent"): "at most 5 percent (a bound the pattern does not state)",
        (400, "balance_insufficient", "amount"): "the wallet's balance must cover the off-ramp (the wallet's state)",
    },
    "POST /wallet/external_accounts": {
        (400, "parameter_missing", None): "the rail decides which bank fields are required (two fields)",
        (400, "parameter_invalid", None): "bank fields carry format and check digits (domain/bank-details.ts)",
    },
    "POST /customers": {
        (400, "parameter_invalid", "legal_name"): "a legal name is for business customers only, 1 to 200 characters once trimmed (two fields)",
    },
    "POST /customers/{id}/verification_links": {
        (400, "parameter_invalid", "kind"): "the link kinds depend on the customer's type (the customer's state)",
    },
    "POST /screenings/{id}/reports": {
        (402, "quota_exhausted", None): "no screening credit left on the owner's balance (the balance's state)",
    },
    "POST /payment_sessions/{token}/pay_with_wallet": {
        (400, "parameter_invalid", "from_address"): "an EIP-55 checksum, never the zero address (a checksum)",
        (400, "rail_not_allowed", "rail"): "the native rail must be one the link offers now (the link's state)",
    },
}


def _error_of(response):
    try:
        body = json.loads(response.content)
    except ValueError:
        return {}
    err = body.get("error") if isinstance(body, dict) else None
    return err if isinstance(err, dict) else {}


def _allowed_beyond_schema(label, status, err):
    rules = RULES_BEYOND_SCHEMA.get(label, {})
    for rule in rules:
        r_status, r_code, r_param = rule[:3]
        r_text = rule[3] if len(rule) > 3 else None
        if (r_status == status and r_code == err.get("code") and (r_param is None or r_param == err.get("param"))
                and (r_text is None or r_text in str(err.get("message", "")))):
            return True
    return False


# Strict mode (FUZZ_STRICT=1, issue 24): schemathesis's own `positive_data_acceptance` runs and this
# check is not registered, so RULES_BEYOND_SCHEMA is not consulted at all.
STRICT = os.environ.get("FUZZ_STRICT") == "1"


def _register_unless_strict(fn):
    return fn if STRICT else schemathesis.check(fn)


@_register_unless_strict
def positive_data_acceptance_stated(ctx, response, case):
    """schemathesis's `positive_data_acceptance` (a schema-valid request is not refused with a 4xx
    other than 401/403/404/409/429), except the refusals `RULES_BEYOND_SCHEMA` names for that
    operation: a rule over the object's state, two fields or the clock, answered with its own code."""
    from schemathesis.openapi.checks import RejectedPositiveData
    from schemathesis.specs.openapi.checks import positive_data_acceptance

    try:
        return positive_data_acceptance(ctx, response, case)
    except RejectedPositiveData:
        if _allowed_beyond_schema(case.operation.label, response.status_code, _error_of(response)):
            return None
        raise
