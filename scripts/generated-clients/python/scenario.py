"""The scenario of the Python client that openapi-generator (`python`) generates from openapi/openapi.json
(package jsondocs_client, on PYTHONPATH from scripts/check-generated-clients.sh): every operation of the
description, called through the generated methods as they are, against a running service.
Usage: JSONDOCS_ADMIN_TOKEN=<the service's admin token> scenario.py <base URL> <file to list the requests in>. Exits 1
on the first broken expectation.
"""

import os
import re
import sys
import time
from urllib.parse import quote, urlsplit

from jsondocs_client import (
    AccessApi, ApiClient, ApiException, BatchApi, BatchReadBody, BatchWriteBody, BatchWriteItem, CollectionSchema, Configuration,
    DocumentsApi, ExpiryApi, HealthApi, IndexDefinition, IndexField, ListingApi, LiveApi, MetricsApi, OpenapiApi, OperationsApi,
    QueriesApi, QueryRequest, QuerySort, SchemasApi, TtlBody
)
from jsondocs_client.models import AggregateRequest
from jsondocs_client.models import (
    AddPatchOperation, AppendOperation, ClearOperation, IncrOperation, IndexOfOperation, InsertOperation,
    JsonPatchOperation, MultOperation, Operation, OperationBody, PopOperation, PushOperation, Scope, TestPatchOperation,
    StreamTicketRequest, ToggleOperation, TokenRequest, TrimOperation
)

ETAG = re.compile(r'^"[0-9]+"$')
KEY = 'pyuser:1'


class Broken(Exception):
    pass


class FormExplodingClient(ApiClient):
    """The generated client sends an object query parameter as JSON text, whatever its style; the description's
    `conditions` takes OpenAPI's default style for query parameters (form, exploded): each member a parameter."""

    def parameters_to_url_query(self, params, collection_formats):
        exploded = []
        for name, value in (params.items() if isinstance(params, dict) else params):
            exploded.extend([(quote(member), text) for member, text in value.items()] if isinstance(value, dict) else [(name, value)])
        return super().parameters_to_url_query(exploded, collection_formats)


def expect(what, got, want):
    if got != want:
        raise Broken(f'{what}: got {got!r}, expected {want!r}')


def expect_that(what, holds, detail=''):
    if not holds:
        raise Broken(f'{what} {detail}'.strip())


def problem(what, call, status, code):
    """Calls a method that must fail; checks the problem it answers with."""
    try:
        call()
    except ApiException as error:
        expect(f'{what} status', error.status, status)
        expect_that(f'{what} content type', error.headers['content-type'].startswith('application/problem+json'))
        expect(f'{what} code', error.data.code, code)
        expect(f'{what} problem status', error.data.status, status)
        return error.data
    raise Broken(f'{what}: succeeded, expected {status}')


def status_of(call):
    """The status of a call's answer; the client raises ApiException for every status outside 2xx (304 too)."""
    try:
        return call().status_code
    except ApiException as error:
        return error.status


def operation(instance):
    return Operation(instance)


def documents(api: DocumentsApi):
    created = api.put_document_with_http_info(KEY, {'name': 'Ann', 'tags': ['a'], 'age': 30})
    expect('create', created.status_code, 201)
    expect('create Location', created.headers['location'], '/docs/pyuser%3A1')
    etag = created.headers['etag']
    expect_that('create ETag', ETAG.match(etag), etag)
    expect('create body', created.data, {'name': 'Ann', 'tags': ['a'], 'age': 30})

    read = api.get_document_with_http_info(KEY, pointer='/tags/0')
    expect('read by pointer', read.data, 'a')
    expect('read ETag', read.headers['etag'], etag)
    expect('JSONPath', api.get_document(KEY, jsonpath='$.name'), ['Ann'])
    expect('If-None-Match', status_of(lambda: api.get_document_with_http_info(KEY, if_none_match=etag)), 304)
    expect('read at path', api.get_document_at_path(KEY, 'name'), 'Ann')

    head = api.head_document_with_http_info(KEY)
    expect('HEAD', head.status_code, 200)
    expect('HEAD ETag', head.headers['etag'], etag)
    expect('HEAD at a missing path', status_of(lambda: api.head_document_at_path_with_http_info(KEY, 'nowhere')), 404)

    meta = api.describe_value(KEY, pointer='/tags')
    expect('meta', (meta.type, meta.length), ('array', 1))
    meta_at_path = api.describe_value_at_path(KEY, 'name')
    expect('meta at path', (meta_at_path.type, meta_at_path.length), ('string', 3))
    expect('HEAD meta', api.head_describe_value_with_http_info(KEY).status_code, 200)
    expect('HEAD meta at path', api.head_describe_value_at_path_with_http_info(KEY, 'age').status_code, 200)

    merged = api.patch_document(KEY, {'age': 31}, _content_type='application/merge-patch+json')
    expect('merge patch', merged, {'name': 'Ann', 'tags': ['a'], 'age': 31})
    expect('merge patch as application/json', api.patch_document_with_http_info(KEY, {'nick': None}).status_code, 200)
    patch = [
        JsonPatchOperation(AddPatchOperation(op='add', path='/-', value='b')),
        JsonPatchOperation(TestPatchOperation(op='test', path='/0', value='a'))
    ]
    patched = api.patch_document_at_path(KEY, 'tags', patch, _content_type='application/json-patch+json')
    expect('JSON Patch', patched, ['a', 'b'])
    at_missing = api.patch_document_at_path_with_http_info(KEY, 'address', {'age': 31}, _content_type='application/merge-patch+json')
    expect('merge patch at a missing member', at_missing.status_code, 201)
    expect('merge patch at path as application/json',
           api.patch_document_at_path_with_http_info(KEY, 'address', {'city': 'Paris'}).status_code, 200)

    added = api.put_document_at_path_with_http_info(KEY, 'city', 'Paris')
    expect('add a member', added.status_code, 201)
    expect('add a member Location', added.headers['location'], '/docs/pyuser%3A1/city')
    expect('delete at path', api.delete_document_at_path_with_http_info(KEY, 'city').status_code, 204)
    expect('delete by pointer', api.delete_document_with_http_info(KEY, pointer='/address').status_code, 204)
    expect('after the edits', api.get_document(KEY), {'name': 'Ann', 'tags': ['a', 'b'], 'age': 31})


def operations(documents_api: DocumentsApi, api: OperationsApi):
    documents_api.put_document('pyops:1', {'n': 1, 's': 'ab', 'arr': [1, 2, 3], 'flag': True, 'obj': {'x': 1}})
    one = api.operate_on_document('pyops:1', OperationBody(operation(IncrOperation(op='incr', by=0.1))), pointer='/n')
    expect('one operation', one.result, 1.1)
    listed = OperationBody([
        operation(MultOperation(op='mult', by=2, path='/n')),
        operation(AppendOperation(op='append', value='c', path='/s')),
        operation(PushOperation(op='push', values=[4], path='/arr')),
        operation(InsertOperation(op='insert', index=0, values=[0], path='/arr')),
        operation(PopOperation(op='pop', path='/arr')),
        operation(TrimOperation(op='trim', start=0, stop=2, path='/arr')),
        operation(IndexOfOperation(op='indexOf', value=2, path='/arr')),
        operation(ToggleOperation(op='toggle', path='/flag')),
        operation(ClearOperation(op='clear', path='/obj'))
    ])
    results = api.operate_on_document('pyops:1', listed)
    expect('a list of operations', results.results, [2.2, 3, 4, 5, 4, 3, 2, False, {}])
    expect('after the operations', documents_api.get_document('pyops:1'),
           {'n': 2.2, 's': 'abc', 'arr': [0, 1, 2], 'flag': False, 'obj': {}})
    problem('incr on a string',
            lambda: api.operate_on_document_at_path(KEY, 'name', OperationBody(operation(IncrOperation(op='incr', by=1)))),
            409, 'DOCS_ERR_VALUE_TYPE')


def problems(api: DocumentsApi):
    problem('missing', lambda: api.get_document('pynobody'), 404, 'DOCS_ERR_NOT_FOUND')
    problem('stale If-Match', lambda: api.put_document(KEY, {}, if_match='"1"'), 412, 'DOCS_ERR_PRECONDITION_FAILED')


def listing_batches_expiry(listing: ListingApi, batch: BatchApi, expiry: ExpiryApi):
    keys, cursor = [], None
    for _ in range(10_000):
        page = listing.list_documents(prefix='pyuser:', limit=1000, cursor=cursor)
        keys += page.keys
        if page.cursor is None:
            break
        cursor = page.cursor
    expect('listed keys', keys, [KEY])
    expect('HEAD list', listing.head_list_documents_with_http_info(prefix='pyuser:').status_code, 200)

    written = batch.write_batch(BatchWriteBody(items=[
        BatchWriteItem(key='pyuser:2', value={'name': 'Bo'}, if_none_match='*', ttl=120.5),
        BatchWriteItem(key=KEY, value={}, if_match='"1"')
    ]))
    expect('batch write statuses', [item.status for item in written.items], [201, 412])
    expect_that('batch write ETag', ETAG.match(written.items[0].etag), written.items[0].etag)
    read = batch.read_batch(BatchReadBody(keys=[KEY, 'pyuser:2', 'pyuser:3'], pointer='/name'))
    expect('batch read', [(item.status, item.value) for item in read.items], [(200, 'Ann'), (200, 'Bo'), (404, None)])
    expect_that('batch read expiresIn', 119 <= read.items[1].expires_in <= 121, read.items[1].expires_in)

    set_ttl = expiry.put_ttl('pyuser:2', TtlBody(ttl=60))
    expect_that('set TTL', 59 < set_ttl.ttl <= 60, set_ttl.ttl)
    expect('Expires-In', expiry.get_ttl_with_http_info('pyuser:2').headers['expires-in'], '60')
    expect('HEAD TTL', expiry.head_ttl_with_http_info('pyuser:2').status_code, 200)
    expect('remove TTL', expiry.delete_ttl_with_http_info('pyuser:2').status_code, 204)
    expect('TTL after removal', expiry.get_ttl('pyuser:2').ttl, None)


def served(documents_api: DocumentsApi, health: HealthApi, metrics: MetricsApi, openapi: OpenapiApi, anonymous: MetricsApi):
    options = documents_api.options_document_with_http_info(KEY)
    expect('OPTIONS', options.status_code, 204)
    expect('Allow', options.headers['allow'], 'GET, HEAD, PUT, PATCH, POST, DELETE')
    expect('OPTIONS at path', documents_api.options_document_at_path_with_http_info(KEY, 'name').status_code, 204)
    for probe in ('health', 'livez', 'readyz'):
        expect(probe, getattr(health, f'get_{probe}')().status, 'ok')
        expect(f'HEAD {probe}', getattr(health, f'head_{probe}_with_http_info')().status_code, 200)
    text = metrics.get_metrics()
    expect_that('metrics', '\njsondocs_http_request_duration_seconds_count{' in text, 'lists no request durations')
    expect('HEAD metrics', metrics.head_metrics_with_http_info().status_code, 200)
    problem('metrics without the token', lambda: anonymous.get_metrics(), 401, 'DOCS_ERR_UNAUTHORIZED')
    expect('openapi.json version', openapi.get_open_api_json()['openapi'], '3.1.0')
    # application/yaml is neither JSON nor text/* to this client: the raw answer is read instead.
    yaml = openapi.get_open_api_yaml_without_preload_content()
    expect('openapi.yaml status', yaml.status, 200)
    expect_that('openapi.yaml', re.search(rb'^openapi: 3\.1\.0$', yaml.data, re.M))
    expect('HEAD openapi.json', openapi.head_open_api_json_with_http_info().status_code, 200)
    expect('HEAD openapi.yaml', openapi.head_open_api_yaml_with_http_info().status_code, 200)


def schemas(api: SchemasApi, documents_api: DocumentsApi):
    collection = 'pyorders'
    schema = {'type': 'object', 'properties': {'total': {'type': 'integer', 'minimum': 0}}, 'required': ['total']}
    registered = api.put_schema_with_http_info(collection, CollectionSchema(schema), _content_type='application/schema+json')
    expect('register', registered.status_code, 201)
    expect('register Location', registered.headers['location'], '/schemas/pyorders')
    etag = registered.headers['etag']
    expect('register answer', (registered.data.collection, registered.data.etag), (collection, etag))
    report = registered.data.existing_documents
    expect('register report', (report.checked, report.violating, report.complete, report.examples), (0, 0, True, []))

    expect('read schema', api.get_schema(collection).actual_instance, schema)
    expect('HEAD schema ETag', api.head_schema_with_http_info(collection).headers['etag'], etag)
    expect('list schemas', [(entry.collection, entry.etag) for entry in api.list_schemas().collections], [(collection, etag)])
    expect('HEAD list schemas', api.head_list_schemas_with_http_info().status_code, 200)

    violation = problem('invalid document', lambda: documents_api.put_document('pyorders:1', {'total': -1}), 422,
                        'DOCS_ERR_SCHEMA_VIOLATION')
    expect('violation', (violation.collection, violation.errors[0].pointer), (collection, '/total'))

    replaced = api.put_schema_with_http_info(collection, CollectionSchema(True), if_match=etag)
    expect('replace with true', replaced.status_code, 200)
    expect('read true', api.get_schema(collection).actual_instance, True)
    expect('valid now', documents_api.put_document_with_http_info('pyorders:1', {'total': -1}).status_code, 201)
    expect('remove schema', api.delete_schema_with_http_info(collection, if_match=replaced.headers['etag']).status_code, 204)
    problem('removed', lambda: api.get_schema(collection), 404, 'DOCS_ERR_NOT_FOUND')


def queries(api: QueriesApi, documents_api: DocumentsApi):
    collection = 'pyproducts'
    for number, price in enumerate([9.5, 12, 4], start=1):
        documents_api.put_document(f'pyproducts:{number}', {'price': price, 'tags': ['sale']})
    fields = [{'pointer': '/price', 'type': 'number', 'sortable': True}, {'pointer': '/tags', 'type': 'tag'}]
    declared = api.put_index_with_http_info(collection, IndexDefinition(fields=[IndexField(**field) for field in fields]))
    expect_that('declare index status', declared.status_code in (200, 202), declared.status_code)
    expect('declare index state', declared.data.state, 'building' if declared.status_code == 202 else 'ready')
    if declared.status_code == 202:
        expect('declare index Location', declared.headers['location'], '/collections/pyproducts/index')
    expect('declare index', (declared.data.collection, declared.data.to_dict()['fields']), (collection, fields))

    # The documents already there are indexed in the background: read the state until ready, bounded in time
    # (at least once, whatever the declaration answered).
    deadline = time.monotonic() + 10
    while (state := api.get_index(collection)).state != 'ready':
        expect_that('index ready in 10 s', time.monotonic() < deadline, state.to_json())
        time.sleep(0.02)
    expect('ready index', state.to_dict(),
           {'collection': collection, 'fields': fields, 'state': 'ready', 'progress': 1, 'documents': 3, 'failures': 0})
    expect('HEAD index', api.head_index_with_http_info(collection).status_code, 200)

    found = api.query_collection_with_http_info(collection, QueryRequest(
        filter={'/tags': 'sale', '/price': {'$lt': 10}}, sort=[QuerySort(pointer='/price', order='desc')], fields=['/price'], limit=20
    ), prefer='count=exact')
    expect('query', found.status_code, 200)
    expect('Preference-Applied', found.headers['preference-applied'], 'count=exact')
    page = found.data
    expect('query items', [(item.key, item.value) for item in page.items],
           [('pyproducts:1', {'/price': 9.5}), ('pyproducts:3', {'/price': 4})])
    for item in page.items:
        expect_that('query item ETag', ETAG.match(item.etag), item.etag)
    expect('query cursor and count', (page.cursor, page.count), (None, 2))

    short = {'conditions': {'/tags': 'sale', '/price': 'lt:10'}, 'sort': '-/price', 'fields': '/price', 'limit': 20}
    short_found = api.get_collection_query_with_http_info(collection, prefer='count=exact', **short)
    expect('short query', short_found.status_code, 200)
    expect('short query Preference-Applied', short_found.headers['preference-applied'], 'count=exact')
    expect('short query page', short_found.data.to_dict(), page.to_dict())
    expect('HEAD short query', api.head_collection_query_with_http_info(collection, **short).status_code, 200)

    grouped = api.aggregate_collection_with_http_info(collection, AggregateRequest.from_dict({
        'groupBy': ['/tags'], 'metrics': {'n': {'$count': {}}, 'total': {'$sum': '/price'}, 'lo': {'$min': '/price'}},
        'sort': [{'metric': 'n', 'order': 'desc'}]
    }))
    expect('aggregate', grouped.status_code, 200)
    expect('aggregate groups', grouped.data.to_dict(), {'groups': [{'key': {'/tags': 'sale'}, 'n': 3, 'total': 25.5, 'lo': 4}], 'truncated': False})

    expect('remove index', api.delete_index_with_http_info(collection).status_code, 204)
    problem('removed index', lambda: api.get_index(collection), 404, 'DOCS_ERR_NOT_FOUND')


def tokens(api: AccessApi):
    created = api.create_token_with_http_info(TokenRequest(scopes=[Scope(prefix='pyuser:', rights=['read'])], ttl=60, label='py reader'))
    expect('create token', created.status_code, 201)
    expect_that('token', created.data.token.startswith('jdt.'), created.data.token)
    listed = api.list_tokens().tokens
    expect('listed token', [(entry.id, entry.label) for entry in listed], [(created.data.id, 'py reader')])
    expect('HEAD tokens', api.head_list_tokens_with_http_info().status_code, 200)
    expect('revoke token', api.revoke_token_with_http_info(created.data.id).status_code, 204)
    problem('revoke again', lambda: api.revoke_token(created.data.id), 404, 'DOCS_ERR_NOT_FOUND')


def stream_ticket(api: LiveApi):
    for request in (StreamTicketRequest(key='pyuser:1'), StreamTicketRequest(prefix='pyuser:')):
        ticket = api.create_stream_ticket_with_http_info(request)
        expect('stream ticket', ticket.status_code, 201)
        expect_that('ticket', ticket.data.ticket.startswith('jst.'), ticket.data.ticket)


def main():
    admin_token = os.environ.get('JSONDOCS_ADMIN_TOKEN', '')
    if len(sys.argv) != 3 or not admin_token:
        sys.exit('usage: JSONDOCS_ADMIN_TOKEN=<token> scenario.py <base URL> <requests file>')
    # Access is enforced: the client sends the admin token as its bearer token, but the one that checks a refusal.
    client = FormExplodingClient(Configuration(host=sys.argv[1], access_token=admin_token))
    anonymous = MetricsApi(ApiClient(Configuration(host=sys.argv[1])))
    sent = []
    send = client.rest_client.request

    def recorded(method, url, *args, **kwargs):
        sent.append(f'{method} {urlsplit(url).path}')
        return send(method, url, *args, **kwargs)
    client.rest_client.request = recorded

    documents_api = DocumentsApi(client)
    try:
        documents(documents_api)
        operations(documents_api, OperationsApi(client))
        problems(documents_api)
        listing_batches_expiry(ListingApi(client), BatchApi(client), ExpiryApi(client))
        served(documents_api, HealthApi(client), MetricsApi(client), OpenapiApi(client), anonymous)
        schemas(SchemasApi(client), documents_api)
        queries(QueriesApi(client), documents_api)
        tokens(AccessApi(client))
        stream_ticket(LiveApi(client))
    except Broken as broken:
        sys.exit(f'python client: {broken}')
    with open(sys.argv[2], 'w') as requests:
        requests.write(''.join(line + '\n' for line in sent))
    print(f'python client: {len(sent)} requests, every expectation met')


if __name__ == '__main__':
    main()
