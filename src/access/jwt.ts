import { createPublicKey, type KeyObject } from 'node:crypto'
import { createLocalJWKSet, jwtVerify, type JSONWebKeySet, type JWTPayload, type JWTVerifyGetKey } from 'jose'
import type { Scope } from './scopes.js'
import type { Verified } from './tokens.js'

/** Where the verifying key comes from: one of them, and the algorithms it pins. */
export type JwtKey =
  | { kind: 'secret', secret: string }
  | { kind: 'publicKey', pem: string }
  | { kind: 'jwks', jwks: JSONWebKeySet }

export interface JwtSettings {
  key: JwtKey
  issuer: string
  audience: string
  /** Scopes whose `{claim}` placeholders are filled from each token's claims. */
  scopesTemplate: Scope[]
}

/** Clock difference tolerated on `exp` and `nbf`, in seconds. */
export const JWT_CLOCK_TOLERANCE_S = 5
/** Longest an instance trusts a JWT it verified, never past its `exp`. */
const VERIFIED_JWT_MS = 30_000
const PLACEHOLDER = /\{([A-Za-z0-9_]+)\}/g
/** What a claim filling a prefix may not hold: it would widen the prefix or reach outside its space. */
const WIDENING = /[\p{Cc}*?[\]\\]/u

/** Why a JWT was refused: becomes the 401's detail. */
export class JwtRefused extends Error {}

/**
 * The algorithms a key type allows: HS256 for a secret; RS256 or ES256 by what the public key is. So a
 * token signed with HS256 using the public key as a secret, or with `alg: none`, is never accepted.
 */
function verifierOf (key: JwtKey): { key: Uint8Array | KeyObject | JWTVerifyGetKey, algorithms: string[] } {
  if (key.kind === 'secret') return { key: new TextEncoder().encode(key.secret), algorithms: ['HS256'] }
  if (key.kind === 'jwks') return { key: createLocalJWKSet(key.jwks), algorithms: ['RS256', 'ES256'] }
  const publicKey = createPublicKey(key.pem)
  return { key: publicKey, algorithms: [algorithmOf(publicKey)] }
}

/** RS256 for an RSA key, ES256 for a P-256 one; any other key is refused at start. */
export function algorithmOf (publicKey: KeyObject): string {
  if (publicKey.asymmetricKeyType === 'rsa') return 'RS256'
  if (publicKey.asymmetricKeyType === 'ec' && publicKey.asymmetricKeyDetails?.namedCurve === 'prime256v1') return 'ES256'
  throw new Error('the JWT public key must be RSA (RS256) or EC P-256 (ES256)')
}

/** Fills the template from the claims; a claim that is missing or could widen a prefix refuses the token. */
export function scopesFromClaims (template: readonly Scope[], claims: JWTPayload, separator: string): Scope[] {
  return template.map((scope) => ({
    rights: scope.rights,
    prefix: scope.prefix.replace(PLACEHOLDER, (_whole, name: string) => {
      const value = claims[name]
      if (typeof value !== 'string' || value === '') throw new JwtRefused(`The token's "${name}" claim is not a non-empty string`)
      if (value.includes(separator) || WIDENING.test(value)) {
        throw new JwtRefused(`The token's "${name}" claim holds the separator, a control or a glob character`)
      }
      return value
    })
  }))
}

/** Verifies JWTs against the configured key, issuer and audience. */
export function createJwtVerifier (settings: JwtSettings, separator: string) {
  const { key, algorithms } = verifierOf(settings.key)
  const options = {
    algorithms, issuer: settings.issuer, audience: settings.audience, clockTolerance: JWT_CLOCK_TOLERANCE_S,
    requiredClaims: ['exp']
  }

  return async function verifyJwt (token: string): Promise<Verified> {
    const now = Date.now()
    let payload: JWTPayload
    try {
      // jose takes a key or a key-set function; the union is one of its overloads each time.
      payload = (await jwtVerify(token, key as Uint8Array, options)).payload
    } catch (error) {
      throw new JwtRefused(`The token is not a valid JWT for this service: ${(error as Error).message}`)
    }
    const scopes = scopesFromClaims(settings.scopesTemplate, payload, separator)
    return { scopes, until: Math.min(now + VERIFIED_JWT_MS, payload.exp! * 1000), lifeline: { expiresAt: payload.exp! * 1000 } }
  }
}

export type JwtVerifier = ReturnType<typeof createJwtVerifier>

/** Whether a bearer string looks like a JWT (three base64url parts) rather than one of the service's tokens. */
export function looksLikeJwt (bearer: string): boolean {
  return /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*$/.test(bearer) && !bearer.startsWith('jdt.')
}
