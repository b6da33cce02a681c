import { Injectable } from '@nestjs/common';
import type { Application } from 'express';

import { METHODS } from 'node:http';
import { OAUTH_TOKEN_PATH } from './request-surface.middleware';

/** A route registered for (nearly) every HTTP method is a catch-all, not an API route. */
const EVERY_METHOD = Math.floor(METHODS.length / 2);

/** What Express leaves on a routed request (`req.route`). */
export interface ExpressRoute {
  path: string;
  methods: Record<string, boolean>;
}

/**
 * The route template a request was answered by (`/v1/meetings/:meeting_id`), or undefined when
 * it matched none: Nest's catch-all not-found route answers every method and is not a route.
 */
export function routeTemplate(route: ExpressRoute | undefined): string | undefined {
  return route && isApiRoute(route) ? route.path : undefined;
}

function isApiRoute(route: ExpressRoute): boolean {
  return !route.methods._all && Object.keys(route.methods).length < EVERY_METHOD;
}

interface RouteEntry {
  matches(path: string): boolean;
  methods: string[];
}

interface ExpressLayer {
  route?: ExpressRoute;
  match(path: string): boolean;
}

/**
 * The routes the app serves, read from Express once the app is initialised, so that a known
 * path asked with another method answers 405 with `Allow` instead of 404.
 */
@Injectable()
export class RouteTable {
  private routes: RouteEntry[] = [];
  private templates: string[] = [];

  load(app: Application): void {
    const router = (app as unknown as { router?: { stack: ExpressLayer[] } }).router;
    this.routes = (router?.stack ?? [])
      // Nest's catch-all not-found route answers every method; it is not a real route.
      .filter((layer) => layer.route && isApiRoute(layer.route))
      .map((layer) => ({
        matches: (path: string) => layer.match(path),
        methods: Object.keys(layer.route!.methods).map((m) => m.toUpperCase()),
      }));
    // As the audit trail writes them (audit-event.ts): method and template, `{name}` for `:name`; HEAD answers a GET route too.
    this.templates = (router?.stack ?? [])
      .map((layer) => layer.route)
      .filter((route): route is ExpressRoute => route !== undefined && isApiRoute(route))
      .filter((route) => route.path === OAUTH_TOKEN_PATH || route.path.startsWith('/v1/'))
      .flatMap((route) => {
        const methods = Object.keys(route.methods).map((m) => m.toUpperCase());
        if (methods.includes('GET')) methods.push('HEAD');
        return methods.map((method) => `${method} ${route.path.replace(/:(\w+)/g, '{$1}')}`);
      });
  }

  /** The route templates an audit event may name (`GET /v1/meetings/{meeting_id}`, `POST /oauth/token`). */
  auditedTemplates(): readonly string[] {
    return this.templates;
  }

  /** Methods allowed on `path`, empty when no route has that path. */
  allowedMethods(path: string): string[] {
    const methods = new Set<string>();
    for (const route of this.routes) {
      if (route.matches(path)) route.methods.forEach((m) => methods.add(m));
    }
    if (methods.has('GET')) methods.add('HEAD');
    return [...methods].sort();
  }
}
