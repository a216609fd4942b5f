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
import re
import threading

import schemathesis
from hypothesis import strategies as st
from hypothesis.internal import lambda_sources

# FUZZ_EXEMPTIONS=none runs as a client runs schemathesis: no exemption of this file applies (no
# 503 code is expected, no cursor dropped, no refusal exempted); fuzz.test.ts then also runs the
# checks it otherwise replaces. The real ids (fixtures) stay: a client calls with its own objects.
NO_EXEMPTIONS = os.environ.get("FUZZ_EXEMPTIONS") == "none"


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


# 503s a fuzzed call may meet on the shared stack, by code, each with its reason (issue 25). No test
# flips a global switch on the shared stack (those run on private stacks), so `switch_off` and the
# test-mode answers are not among them: any other 503 is a fault.
EXPECTED_503 = {
    "funding_instructions_pending": "the provider is still preparing a payout's funding instructions (spec 4.3: retry after Retry-After)",
}
if NO_EXEMPTIONS:
    EXPECTED_503 = {}


@schemathesis.check
def no_server_fault(ctx, response, case):
    """No 5xx, except a 503 `temporarily_unavailable` whose code `EXPECTED_503` names: a documented
    answer of the operation's state (retry later), not a fault."""
    if response.status_code < 500:
        return None
    if response.status_code == 503:
        err = _error_of(response)
        if err.get("type") == "temporarily_unavailable" and err.get("code") in EXPECTED_503:
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
    docs/decisions/0027-hostile-input.md)."""
    query = getattr(case, "query", None)
    if NO_EXEMPTIONS:
        return
    if isinstance(query, dict) and query.get("cursor") not in (None, ""):
        del query["cursor"]


# Strict acceptance (issues 24, 25): a schema-valid request is accepted (schemathesis's
# `positive_data_acceptance`), except for the refusals named here. Every rule the document can state
# (one field, or two fields through `anyOf`/`oneOf`/`not`) is in the document instead; what is left
# is what JSON Schema cannot say: the object's or account's state, the clock, a checksum, DNS, a
# rate, the stack's configured network, an order between two values or uniqueness across rows. Each
# exemption names its operation, the refusal (status, code), the parameter it names (a regex over
# the error's `param`; PATH when the rule is over the object in the path and the error names no
# field), the kind of rule and the rule. An exemption never covers another parameter or code.
PATH = None


def _x(status, code, param, kind, rule, message=None):
    return {"status": status, "code": code, "param": param, "kind": kind, "rule": rule, "message": message}


BANK_FORMAT_FIELDS = r"account_number|routing_number|iban|bic|sort_code|clabe|pix_key"
BANK_RAIL_FIELDS = r"account_number|routing_number|account_type|iban|bic|sort_code|clabe|pix_key"
KINDS = {"state", "clock", "checksum", "dns", "rate", "network", "order", "uniqueness", "balance"}

STATED_EXEMPTIONS = {
    "POST /subscriptions": [
        _x(400, "parameter_invalid", "billing_cycle_anchor", "clock", "the anchor is at most a day in the past and a year ahead"),
        _x(400, "settlement_destination_invalid", "settlement_destination_id", "state", "the destination must be a crypto entry on the service chain"),
        _x(400, "client_archived", "client_id", "state", "an archived client takes no new subscription"),
    ],
    "POST /orders": [
        _x(400, "destination_invalid", "destination_id|wallet_address|payment_link_id", "state", "the destination must fit the offer's side, network and currency"),
        _x(400, "refund_address_not_applicable", "refund_address", "state", "a buy offer takes no refund address"),
        _x(400, "refund_address_invalid", "refund_address", "state", "the refund address must be an address on the offer's network"),
    ],
    "POST /wallet/conversions": [
        _x(400, "conversion_pair_unsupported", "to_asset", "network", "the pairs of the stack's network only (USDC on the test network, USDC.e on mainnet; the document lists both)"),
    ],
    "PATCH /payment_links/{id}/reminder_schedule": [
        _x(422, "reminder_schedule_not_supported", "reminder_schedule", "state", "a crypto-only link has no reminder schedule"),
    ],
    "POST /payment_links/{id}/activate": [
        _x(400, "settlement_destination_required", "settlement_destination", "state", "the draft must have a settlement destination first"),
    ],
    "POST /payment_sessions/{token}/payments": [
        _x(400, "rail_not_allowed", "rail", "state", "the rail must be one the link offers now"),
    ],
    "POST /payment_sessions/{token}/pay_with_wallet": [
        _x(400, "parameter_invalid", "from_address", "checksum", "a mixed-case address carries its EIP-55 checksum", "checksum"),
        _x(400, "rail_not_allowed", "rail", "state", "the native rail must be one the link offers now"),
    ],
    "POST /payouts/{id}/beneficiary": [
        _x(400, "parameter_missing", BANK_RAIL_FIELDS, "state", "without `rail` the payout's own rail decides the fields it needs"),
        _x(400, "parameter_invalid", BANK_RAIL_FIELDS, "state", "without `rail` the payout's own rail decides the fields it takes", "does not apply to the"),
        _x(400, "parameter_invalid", "rail", "state", "`rail` must be the payout's rail"),
        _x(400, "parameter_invalid", BANK_FORMAT_FIELDS, "checksum", "account formats and check digits (ABA, IBAN mod-97, CLABE, Pix key kinds)", "is not valid"),
    ],
    "POST /address_book/{id}/beneficiary": [
        _x(400, "address_book_entry_kind_mismatch", PATH, "state", "bank details apply to bank entries only"),
        _x(400, "parameter_invalid", BANK_FORMAT_FIELDS, "checksum", "account formats and check digits (ABA, IBAN mod-97, CLABE, Pix key kinds)", "is not valid"),
    ],
    "POST /wallet/external_accounts": [
        _x(400, "parameter_invalid", BANK_FORMAT_FIELDS, "checksum", "account formats and check digits (ABA, IBAN mod-97, CLABE, Pix key kinds)", "is not valid"),
    ],
    "POST /payment_links": [
        _x(400, "client_archived", "client_id", "state", "an archived client takes no new links"),
        _x(400, "currency_mismatch", r"items\.\d+\.unit_amount", "order", "an item's `unit_amount` is in `amount.currency` (JSON Schema cannot compare two values)"),
        _x(400, "parameter_invalid", "expires_at", "clock", "`expires_at` must be in the future", "in the future"),
    ],
    "PATCH /payment_links/{id}": [
        _x(400, "allowed_rails_invalid_for_currency", "allowed_rails", "state", "without `amount` the stored link's currency decides the rails"),
        _x(400, "client_archived", "client_id", "state", "an archived client takes no new links"),
        _x(400, "currency_mismatch", r"items\.\d+\.unit_amount", "state", "an item's `unit_amount` is in the link currency: the body's `amount.currency`, else the stored link's"),
        _x(400, "parameter_invalid", "expires_at", "clock", "`expires_at` must be in the future", "in the future"),
    ],
    "POST /payroll_runs": [
        _x(400, "currency_mismatch", "currency", "state", "a template's currency is fixed"),
        _x(400, "duplicate_recipient", r"rows\[\d+\]\.(email|recipient_id)", "uniqueness", "a recipient appears once per run (JSON Schema's uniqueItems compares whole rows)"),
        _x(400, "recipient_not_found", r"rows\[\d+\]\.recipient_id", "state", "a row's recipient_id must be the account's recipient"),
        _x(400, "pay_period_invalid", "pay_period_end", "order", "the pay period ends after it starts (JSON Schema cannot compare two values)"),
        _x(422, "payroll_cap_exceeded", r"rows\[\d+\]\.amount|rows", "rate", "caps of 10,000 USD per item and 25,000 USD per run, at the day's exchange rate"),
    ],
    "POST /payroll_templates": [
        _x(400, "currency_mismatch", "currency", "state", "`currency` with `from_run_id` must be the run's"),
        _x(400, "duplicate_recipient", r"rows\[\d+\]\.(email|recipient_id)", "uniqueness", "a recipient appears once per template (JSON Schema's uniqueItems compares whole rows)"),
        _x(422, "payroll_cap_exceeded", r"rows\[\d+\]\.amount|rows", "rate", "caps of 10,000 USD per item and 25,000 USD per run, at the day's exchange rate"),
    ],
    "POST /payroll_recipient_sessions/{token}/destination": [
        _x(400, "parameter_invalid", "rail", "state", "the rail must pay in the run's currency"),
        _x(400, "parameter_invalid", "chain", "network", "wallets are paid on the stack's chain only"),
        _x(400, "parameter_invalid", "address|" + BANK_FORMAT_FIELDS, "checksum", "bank formats and check digits, wallet address format and EIP-55 checksum", "is not valid"),
    ],
    "POST /payroll_recipients/{id}/adopt_pending_destination": [
        _x(422, "destination_rail_keyless", PATH, "state", "the destination must be payable in every open item's currency"),
    ],
    "POST /payouts/{id}/replace": [
        _x(400, "amount_invalid", "invoice_amount", "state", "the replaced payout's corridor decides the minimum and maximum invoice amount"),
        _x(400, "currency_mismatch", "invoice_amount", "state", "the replaced payout's corridor decides the invoice currency"),
        _x(400, "parameter_missing", "recipient_email", "state", "`notify_recipient: true` needs a `recipient_email`, the body's or the replaced payout's"),
    ],
    "PATCH /products/{id}": [
        _x(400, "currency_mismatch", "currency|unit_price", "state", "a new currency alone must be the stored price's; a price alone is in the stored currency"),
    ],
    "POST /address_book": [
        _x(400, "address_invalid", "address", "checksum", "an address is valid for its chain, EIP-55 checksum included"),
    ],
    "PATCH /address_book/{id}": [
        _x(400, "parameter_invalid", "counterparty_vasp_name|counterparty_vasp_jurisdiction", "state", "VASP fields apply to crypto entries only (the entry's kind)"),
    ],
    "POST /address_book/{id}/recheck": [
        _x(400, "address_book_entry_kind_mismatch", PATH, "state", "only crypto entries are screened"),
    ],
    "POST /api_keys": [
        _x(400, "parameter_invalid", "expires_at", "clock", "`expires_at` must be in the future", "greater than"),
    ],
    "POST /webhook_endpoints": [
        _x(400, "url_destination_forbidden", "url", "dns", "a host name that resolves to a non-public address or has an internal suffix"),
    ],
    "PATCH /webhook_endpoints/{id}": [
        _x(400, "url_destination_forbidden", "url", "dns", "a host name that resolves to a non-public address or has an internal suffix"),
    ],
    "POST /payouts/{id}/funding_instructions": [
        _x(400, "payout_source_chain_missing", "source_chain", "state", "an external-wallet payout created without `source_chain` names it here"),
        _x(400, "parameter_invalid", "refund_address", "checksum", "a mixed-case address carries its EIP-55 checksum", "checksum"),
    ],
    "POST /wallet/wallets": [
        _x(400, "parameter_invalid", "address", "checksum", "a mixed-case address carries its EIP-55 checksum", "checksum"),
    ],
    "POST /wallet/send_intents": [
        _x(400, "parameter_invalid", "destination_address", "checksum", "an EIP-55 checksum, and never the wallet itself (the wallet's address)"),
        _x(400, "parameter_invalid", "amount.currency", "network", "the wallet sends its network's stablecoin"),
        _x(400, "amount_invalid", "amount", "rate", "the route's minimum is 0.01 plus its bridge fee"),
        _x(400, "balance_insufficient", "amount", "balance", "the wallet's balance must cover the send"),
    ],
    "POST /wallet/offramp_quotes": [
        _x(400, "parameter_invalid", "amount.currency", "network", "an off-ramp spends the network's stablecoin"),
        _x(400, "amount_invalid", "amount", "rate", "at least 1 USDC, and more than the fees"),
    ],
    "POST /wallet/offramp_intents": [
        _x(400, "parameter_invalid", "destination_payment_rail", "state", "the rail must be the external account's", "is paid on"),
        _x(400, "parameter_invalid", "amount.currency", "network", "an off-ramp spends the network's stablecoin"),
        _x(400, "amount_invalid", "amount", "rate", "at least 1 USDC, and more than the fees"),
        _x(400, "balance_insufficient", "amount", "balance", "the wallet's balance must cover the off-ramp"),
    ],
    "POST /wallet/deposit_intents": [
        _x(400, "currency_invalid", "amount.currency|amount", "network", "the wallet receives its network's stablecoin"),
        _x(400, "amount_invalid", "amount", "rate", "the amount plus the route's bridge fee must stay storable (the fee is the route's)", "largest storable"),
    ],
    "POST /wallet/deposit_quotes": [
        _x(400, "currency_invalid", "amount.currency|amount", "network", "the wallet receives its network's stablecoin"),
        _x(400, "amount_invalid", "amount", "rate", "the amount plus the route's bridge fee must stay storable (the fee is the route's)", "largest storable"),
    ],
    "POST /payouts": [
        _x(422, "payer_type_mismatch", "payer_type", "state", "`payer_type` is derived from the account's verification; another value is refused"),
    ],
    "POST /customers/{id}/verification_links": [
        _x(400, "parameter_invalid", "kind", "state", "the link kinds depend on the customer's type"),
    ],
    "POST /screenings/{id}/reports": [
        _x(402, "quota_exhausted", PATH, "balance", "no screening credit left on the owner's balance"),
    ],
}

for _label, _rules in STATED_EXEMPTIONS.items():
    for _r in _rules:
        assert _r["kind"] in KINDS, f"{_label}: unknown kind {_r['kind']}"
        assert _r["rule"], f"{_label}: an exemption states its rule"


def _error_of(response):
    try:
        body = json.loads(response.content)
    except ValueError:
        return {}
    err = body.get("error") if isinstance(body, dict) else None
    return err if isinstance(err, dict) else {}


def _record_exemption(label, index):
    """Appends `<label> #<index>` (the exemption's place in its list) to CONTRACT_EXEMPTIONS_USED, when set."""
    path = os.environ.get("CONTRACT_EXEMPTIONS_USED")
    if not path:
        return
    with _USED_LOCK, open(path, "a", encoding="utf-8") as f:
        f.write(f"{label} #{index}\n")


def _exempt(label, status, err):
    """The exemption of `label` that matches this refusal exactly (status, code, param, message excerpt), or None."""
    if NO_EXEMPTIONS:
        return None
    for index, r in enumerate(STATED_EXEMPTIONS.get(label, [])):
        if r["status"] != status or r["code"] != err.get("code"):
            continue
        param = err.get("param")
        if r["param"] is PATH:
            if param is not None:
                continue
        elif not isinstance(param, str) or not re.fullmatch(r["param"], param):
            continue
        if r["message"] is not None and r["message"] not in str(err.get("message", "")):
            continue
        _record_exemption(label, index)
        return r
    return None


@schemathesis.check
def positive_data_acceptance_stated(ctx, response, case):
    """schemathesis's `positive_data_acceptance` (a schema-valid request is not refused with a 4xx
    other than 401/403/404/409/429), except a refusal `STATED_EXEMPTIONS` names exactly: a rule the
    document cannot state (state, clock, checksum, DNS, rate, network, order, uniqueness, balance)."""
    from schemathesis.openapi.checks import RejectedPositiveData
    from schemathesis.specs.openapi.checks import positive_data_acceptance

    try:
        return positive_data_acceptance(ctx, response, case)
    except RejectedPositiveData:
        if _exempt(case.operation.label, response.status_code, _error_of(response)) is not None:
            return None
        raise
