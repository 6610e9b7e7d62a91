import { readFileSync } from 'node:fs'
import type { JSONWebKeySet } from 'jose'
import { algorithmOf, createJwtVerifier, type JwtKey, type JwtSettings } from './jwt.js'
import { parseScopes, type Scope } from './scopes.js'
import { createPublicKey } from 'node:crypto'

/** Who may do what, as configured; see docs/access.md. */
export interface AccessSettings {
  /** Has every right on every key and alone manages tokens; compared in constant time. */
  adminToken?: string
  /** Rights every request has, with or without credentials. */
  anonymousScopes: Scope[]
  jwt?: JwtSettings
  /** Every request has every right: no authentication is configured (loopback only) or AUTH_DISABLED is set. */
  open: boolean
}

/** The AUTH_* settings, as the environment schema reads them. */
export interface AccessEnvironment {
  HOST: string
  COLLECTION_SEPARATOR: string
  AUTH_ADMIN_TOKEN?: string
  AUTH_ANONYMOUS_SCOPES?: string
  AUTH_DISABLED: boolean
  AUTH_JWT_SECRET?: string
  AUTH_JWT_PUBLIC_KEY_FILE?: string
  AUTH_JWT_JWKS_FILE?: string
  AUTH_JWT_ISSUER?: string
  AUTH_JWT_AUDIENCE?: string
  AUTH_JWT_SCOPES?: string
}

/** The AUTH_* variables of the environment schema. */
export const accessEnvironmentSchema = {
  // Visible ASCII, as a bearer token is sent; long enough not to be guessed. No default: no admin.
  AUTH_ADMIN_TOKEN: { type: 'string', minLength: 32, maxLength: 512, pattern: '^[\\x21-\\x7e]+$' },
  AUTH_ANONYMOUS_SCOPES: { type: 'string' },
  AUTH_DISABLED: { type: 'boolean', default: false },
  AUTH_JWT_SECRET: { type: 'string', minLength: 32 },
  AUTH_JWT_PUBLIC_KEY_FILE: { type: 'string', minLength: 1 },
  AUTH_JWT_JWKS_FILE: { type: 'string', minLength: 1 },
  AUTH_JWT_ISSUER: { type: 'string', minLength: 1 },
  AUTH_JWT_AUDIENCE: { type: 'string', minLength: 1 },
  AUTH_JWT_SCOPES: { type: 'string' }
} as const

const LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|::1|::ffff:127(\.\d{1,3}){3}|\[::1\])$/i

export function isLoopback (host: string): boolean {
  return LOOPBACK.test(host)
}

function readSetting (file: string, setting: string): string {
  try {
    return readFileSync(file, 'utf8')
  } catch (error) {
    throw new Error(`${setting}: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`)
  }
}

function jwtKeyOf (environment: AccessEnvironment): JwtKey | undefined {
  const { AUTH_JWT_SECRET: secret, AUTH_JWT_PUBLIC_KEY_FILE: keyFile, AUTH_JWT_JWKS_FILE: jwksFile } = environment
  const given = [secret, keyFile, jwksFile].filter((value) => value !== undefined).length
  if (given > 1) throw new Error('Set one of AUTH_JWT_SECRET, AUTH_JWT_PUBLIC_KEY_FILE and AUTH_JWT_JWKS_FILE, not several')
  if (secret !== undefined) return { kind: 'secret', secret }
  if (keyFile !== undefined) {
    const pem = readSetting(keyFile, 'AUTH_JWT_PUBLIC_KEY_FILE')
    try {
      algorithmOf(createPublicKey(pem))
    } catch (error) {
      throw new Error(`AUTH_JWT_PUBLIC_KEY_FILE: ${(error as Error).message}`)
    }
    return { kind: 'publicKey', pem }
  }
  if (jwksFile !== undefined) {
    let jwks: JSONWebKeySet
    try {
      jwks = JSON.parse(readSetting(jwksFile, 'AUTH_JWT_JWKS_FILE')) as JSONWebKeySet
    } catch (error) {
      throw new Error(`AUTH_JWT_JWKS_FILE: not a JSON Web Key Set (${(error as Error).message})`)
    }
    return { kind: 'jwks', jwks }
  }
  return undefined
}

/**
 * Reads the AUTH_* settings (and the key files they name) once at start. A bad value, or a service that
 * would serve every right to a network, throws a sentence naming the setting.
 */
export function accessSettingsFrom (environment: AccessEnvironment): AccessSettings {
  const key = jwtKeyOf(environment)
  const jwtOnly = ['AUTH_JWT_ISSUER', 'AUTH_JWT_AUDIENCE', 'AUTH_JWT_SCOPES'] as const
  let jwt: JwtSettings | undefined
  if (key) {
    const missing = jwtOnly.filter((name) => environment[name] === undefined)
    if (missing.length > 0) throw new Error(`JWTs need ${missing.join(', ')} too: the issuer and audience are checked, and the scopes say what a token grants`)
    jwt = {
      key,
      issuer: environment.AUTH_JWT_ISSUER!,
      audience: environment.AUTH_JWT_AUDIENCE!,
      scopesTemplate: parseScopes(environment.AUTH_JWT_SCOPES!, 'AUTH_JWT_SCOPES')
    }
    try {
      createJwtVerifier(jwt, environment.COLLECTION_SEPARATOR)
    } catch (error) {
      throw new Error(`The JWT key is not usable: ${(error as Error).message}`)
    }
  } else {
    const stray = jwtOnly.filter((name) => environment[name] !== undefined)
    if (stray.length > 0) throw new Error(`${stray.join(', ')} need a JWT key: AUTH_JWT_SECRET, AUTH_JWT_PUBLIC_KEY_FILE or AUTH_JWT_JWKS_FILE`)
  }
  const anonymousScopes = environment.AUTH_ANONYMOUS_SCOPES === undefined
    ? []
    : parseScopes(environment.AUTH_ANONYMOUS_SCOPES, 'AUTH_ANONYMOUS_SCOPES')
  const configured = environment.AUTH_ADMIN_TOKEN !== undefined || jwt !== undefined || environment.AUTH_ANONYMOUS_SCOPES !== undefined
  if (environment.AUTH_DISABLED && configured) {
    throw new Error('AUTH_DISABLED=true gives every request every right: it cannot be combined with AUTH_ADMIN_TOKEN, JWT or anonymous scopes')
  }
  if (!configured && !environment.AUTH_DISABLED && !isLoopback(environment.HOST)) {
    throw new Error(`No authentication is configured, so every request would have every right: HOST=${environment.HOST} is not a ` +
      'loopback address. Set AUTH_ADMIN_TOKEN (or JWT settings), or AUTH_DISABLED=true to serve without access control')
  }
  return {
    ...(environment.AUTH_ADMIN_TOKEN === undefined ? {} : { adminToken: environment.AUTH_ADMIN_TOKEN }),
    anonymousScopes,
    ...(jwt ? { jwt } : {}),
    open: !configured
  }
}
