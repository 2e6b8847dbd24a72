import Foundation
import Testing

@testable import GatewayDocumentStorage

/// The signatures of AWS's own worked examples ("Signature Calculations for the Authorization
/// Header" and "Query String Authentication", S3 API reference), reproduced to the digit.
@Suite struct SigV4Tests {
    let signer = SigV4(
        credentials: S3Credentials(accessKeyID: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
        region: "us-east-1"
    )
    /// 24 May 2013, 00:00:00 UTC.
    let date = Date(timeIntervalSince1970: 1_369_353_600)

    @Test func getObjectWithRangeMatchesAWSExample() {
        let url = URLComponents(string: "https://examplebucket.s3.amazonaws.com/test.txt")!
        let headers = signer.authorization(method: "GET", url: url, headers: ["Range": "bytes=0-9"], payloadHash: SigV4.emptyPayload, date: date)
        #expect(
            headers["Authorization"]
                == "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41"
        )
        #expect(headers["x-amz-date"] == "20130524T000000Z")
        #expect(headers["x-amz-content-sha256"] == SigV4.emptyPayload)
    }

    @Test func putObjectMatchesAWSExample() {
        let url = URLComponents(string: "https://examplebucket.s3.amazonaws.com/test$file.text")!
        let headers = signer.authorization(
            method: "PUT",
            url: url,
            headers: ["Date": "Fri, 24 May 2013 00:00:00 GMT", "x-amz-storage-class": "REDUCED_REDUNDANCY"],
            payloadHash: "44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072",
            date: date
        )
        #expect(headers["Authorization"]?.hasSuffix("Signature=98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd") == true)
    }

    @Test func listObjectsMatchesAWSExample() {
        var url = URLComponents(string: "https://examplebucket.s3.amazonaws.com/")!
        url.percentEncodedQueryItems = [URLQueryItem(name: "max-keys", value: "2"), URLQueryItem(name: "prefix", value: "J")]
        let headers = signer.authorization(method: "GET", url: url, headers: [:], payloadHash: SigV4.emptyPayload, date: date)
        #expect(headers["Authorization"]?.hasSuffix("Signature=34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7") == true)
    }

    @Test func presignedURLMatchesAWSExample() {
        let url = signer.presign(url: URLComponents(string: "https://examplebucket.s3.amazonaws.com/test.txt")!, expires: .seconds(86400), date: date)
        #expect(
            url.absoluteString
                == "https://examplebucket.s3.amazonaws.com/test.txt?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20130524%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=20130524T000000Z&X-Amz-Expires=86400&X-Amz-SignedHeaders=host&X-Amz-Signature=aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404"
        )
    }

    @Test func locationReadsTheAWSVariables() throws {
        let location = try S3Location.parse(
            "s3://docs/tenant-a/pdfs/",
            environment: [
                "AWS_ACCESS_KEY_ID": "K", "AWS_SECRET_ACCESS_KEY": "S", "AWS_REGION": "eu-west-1", "AWS_ENDPOINT_URL": "http://127.0.0.1:7480",
            ]
        )
        #expect(location.bucket == "docs")
        #expect(location.prefix == "tenant-a/pdfs")
        #expect(location.pathStyle)
        #expect(location.url(key: location.key("documents/a b.pdf")).string == "http://127.0.0.1:7480/docs/tenant-a/pdfs/documents/a%20b.pdf")
        let aws = try S3Location.parse("s3://docs", environment: ["AWS_ACCESS_KEY_ID": "K", "AWS_SECRET_ACCESS_KEY": "S"])
        #expect(aws.url(key: "x.pdf").string == "https://docs.s3.us-east-1.amazonaws.com/x.pdf")
        #expect(throws: S3ConfigurationError.self) {
            try S3Location.parse("s3://Docs", environment: ["AWS_ACCESS_KEY_ID": "K", "AWS_SECRET_ACCESS_KEY": "S"])
        }
        let missingKeys = #expect(throws: S3ConfigurationError.self) { try S3Location.parse("s3://docs", environment: [:]) }
        #expect(missingKeys?.description.contains("AWS_ACCESS_KEY_ID") == true)
    }
}
