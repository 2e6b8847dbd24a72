#!/usr/bin/python3
"""Looks into an S3 bucket with boto3, for tests that cross-check what the gateway stored there
with a client that is not ours (Debian's python3-boto3, hence /usr/bin/python3). Path-style
requests, SigV4, region us-east-1; the endpoint and keys from the options or from AWS_ENDPOINT_URL,
AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (what `scripts/s3-scratch.sh start` prints).

    /usr/bin/python3 scripts/s3_peek.py list BUCKET [PREFIX]    # one JSON object a line, by key
    /usr/bin/python3 scripts/s3_peek.py head BUCKET KEY         # one JSON object
    /usr/bin/python3 scripts/s3_peek.py get BUCKET KEY OUTFILE  # OUTFILE '-' for stdout
    /usr/bin/python3 scripts/s3_peek.py put BUCKET KEY FILE [--content-type T] [--meta K=V]...
    /usr/bin/python3 scripts/s3_peek.py delete BUCKET KEY
    /usr/bin/python3 scripts/s3_peek.py make-bucket BUCKET
    ... --endpoint URL --access-key ID --secret-key SECRET  (before the command)

An object is {"key", "size", "etag" (without its quotes), "last_modified" (ISO 8601, UTC),
"content_type", "metadata" (the x-amz-meta-* headers, names lower-case)}. Exit status 3 when the
bucket or the key does not exist, 1 for any other error (its S3 code on stderr).
"""

import argparse
import json
import os
import shutil
import sys

try:
    import boto3
    from botocore.config import Config
    from botocore.exceptions import BotoCoreError, ClientError
except ImportError:
    sys.exit("s3_peek: boto3 is not installed for this Python; run 'bash scripts/install-deps.sh' "
             "(Debian's python3-boto3) and use /usr/bin/python3")

MISSING = {"NoSuchBucket", "NoSuchKey", "404", "NotFound"}


def client(args):
    endpoint = args.endpoint or os.environ.get("AWS_ENDPOINT_URL")
    access_key = args.access_key or os.environ.get("AWS_ACCESS_KEY_ID")
    secret_key = args.secret_key or os.environ.get("AWS_SECRET_ACCESS_KEY")
    if not (endpoint and access_key and secret_key):
        sys.exit("s3_peek: give --endpoint, --access-key and --secret-key "
                 "(or AWS_ENDPOINT_URL, AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY)")
    return boto3.session.Session().client(
        "s3",
        endpoint_url=endpoint,
        aws_access_key_id=access_key,
        aws_secret_access_key=secret_key,
        region_name="us-east-1",
        config=Config(
            signature_version="s3v4",
            s3={"addressing_style": "path"},
            # A cross-check reports what the server said the first time.
            retries={"total_max_attempts": 1},
            connect_timeout=10,
            read_timeout=120,
        ),
    )


def describe(key, head):
    return {
        "key": key,
        "size": head["ContentLength"],
        "etag": head["ETag"].strip('"'),
        "last_modified": head["LastModified"].isoformat(),
        "content_type": head.get("ContentType"),
        "metadata": head.get("Metadata", {}),
    }


def emit(obj):
    print(json.dumps(obj, sort_keys=True), flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--endpoint")
    parser.add_argument("--access-key")
    parser.add_argument("--secret-key")
    commands = parser.add_subparsers(dest="command", required=True)
    p = commands.add_parser("list")
    p.add_argument("bucket")
    p.add_argument("prefix", nargs="?", default="")
    p = commands.add_parser("head")
    p.add_argument("bucket")
    p.add_argument("key")
    p = commands.add_parser("get")
    p.add_argument("bucket")
    p.add_argument("key")
    p.add_argument("outfile")
    p = commands.add_parser("put")
    p.add_argument("bucket")
    p.add_argument("key")
    p.add_argument("file")
    p.add_argument("--content-type", default="application/octet-stream")
    p.add_argument("--meta", action="append", default=[], metavar="NAME=VALUE")
    p = commands.add_parser("delete")
    p.add_argument("bucket")
    p.add_argument("key")
    p = commands.add_parser("make-bucket")
    p.add_argument("bucket")
    args = parser.parse_args()
    if args.command == "put" and any("=" not in item for item in args.meta):
        parser.error("--meta takes NAME=VALUE")

    s3 = client(args)
    try:
        if args.command == "list":
            pages = s3.get_paginator("list_objects_v2").paginate(Bucket=args.bucket, Prefix=args.prefix)
            for page in pages:
                for item in page.get("Contents", []):
                    emit(describe(item["Key"], s3.head_object(Bucket=args.bucket, Key=item["Key"])))
        elif args.command == "head":
            emit(describe(args.key, s3.head_object(Bucket=args.bucket, Key=args.key)))
        elif args.command == "get":
            body = s3.get_object(Bucket=args.bucket, Key=args.key)["Body"]
            if args.outfile == "-":
                shutil.copyfileobj(body, sys.stdout.buffer)
                sys.stdout.buffer.flush()
            else:
                with open(args.outfile, "wb") as out:
                    shutil.copyfileobj(body, out)
        elif args.command == "put":
            metadata = dict(item.split("=", 1) for item in args.meta)
            with open(args.file, "rb") as body:
                s3.put_object(Bucket=args.bucket, Key=args.key, Body=body,
                              ContentType=args.content_type, Metadata=metadata)
        elif args.command == "delete":
            s3.delete_object(Bucket=args.bucket, Key=args.key)
        elif args.command == "make-bucket":
            s3.create_bucket(Bucket=args.bucket)
    except ClientError as error:
        code = error.response.get("Error", {}).get("Code", "?")
        message = error.response.get("Error", {}).get("Message") or ""
        print(f"s3_peek: {args.command}: {code} {message}".rstrip(), file=sys.stderr)
        sys.exit(3 if code in MISSING else 1)
    except BotoCoreError as error:
        print(f"s3_peek: {args.command}: {error}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
