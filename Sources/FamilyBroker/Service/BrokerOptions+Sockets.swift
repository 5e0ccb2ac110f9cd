extension BrokerOptions {
    /// The part of these options the sockets read.
    var sockets: SocketOptions {
        SocketOptions(
            ingress: ingress, egress: egress, adminSocket: adminSocket, subscriberHighWaterMark: subscriberHighWaterMark
        )
    }
}
