import { nestedObject } from '../fixtures.js'
import type { HttpRequestSpec, RowSpec, Scenario } from './scenario.js'

const family = 'floor'
const OBJECT_KEY = 'bench:floor-380b'
const NUMBER_KEY = 'bench:floor-num'
const JSON_BODY = { 'content-type': 'application/json' }

/** A URL of the floor server: the document's key and a RedisJSON (legacy) path. */
function floorPath (key: string, path: string): string {
  return `/floor/${encodeURIComponent(key)}?path=${encodeURIComponent(path)}`
}

function floorRow (name: string, title: string, request: HttpRequestSpec, kind: RowSpec['kind']): RowSpec {
  return { id: `${family}/${name}`, family, title, requests: [request], target: 'floor', kind }
}

/**
 * The small rows the targets judge, sent to the floor server (bench/processes/floor-server.mjs): what
 * the same fastify and node-redis cost when a gateway does the least that keeps an ETag true.
 */
export function floorScenario (): Scenario {
  return {
    family,
    title: 'Floor: the least a versioned gateway on fastify and node-redis does (380 B object, increment)',
    documents: { [OBJECT_KEY]: nestedObject(), [NUMBER_KEY]: 0 },
    rows: [
      floorRow('get-root', 'GET root: GET version + JSON.GET {key} .', { method: 'GET', path: floorPath(OBJECT_KEY, '.') }, 'read'),
      floorRow('get-sclr', 'GET sclr: GET version + JSON.GET {key} sclr', { method: 'GET', path: floorPath(OBJECT_KEY, 'sclr') }, 'read'),
      floorRow('set-sclr', 'PUT sclr 1: script of JSON.SET {key} sclr 1 XX + INCR version',
        { method: 'PUT', path: floorPath(OBJECT_KEY, 'sclr'), body: '1', headers: JSON_BODY }, 'write'),
      floorRow('incr', 'POST {"op":"incr","by":1}: script of JSON.NUMINCRBY {key} . 1 + INCR version',
        { method: 'POST', path: floorPath(NUMBER_KEY, '.'), body: '{"op":"incr","by":1}', headers: JSON_BODY }, 'write')
    ]
  }
}
